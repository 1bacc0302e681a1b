// Package daemonbuild says how pty-daemon is built differently from the
// other commands, for the builds of the tests and the benchmarks, which
// must measure the daemon people install (install/build.sh builds it the
// same way; TestBuildScriptAgrees checks that the two agree).
//
// The daemon is built without Go's Green Tea garbage collector
// (GOEXPERIMENT=nogreenteagc) while the toolchain still offers that
// choice. Green Tea keeps mark bits at the end of every span of small
// objects and writes them when the span is made, so each such span of an
// idle daemon, most of them holding a few objects at their start, has its
// last page private as well as its first; one process per session pays
// that for a collector it almost never runs (docs/contributing.md, "Where
// a session's memory goes"). A toolchain that no longer knows the
// experiment builds the daemon as it builds the rest.
package daemonbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Experiment is the GOEXPERIMENT setting the daemon is built with.
const Experiment = "nogreenteagc"

// Package is the daemon's main package.
const Package = "./cmd/pty-daemon"

// Env is env (KEY=VALUE, as for exec.Cmd) with Experiment added to its
// GOEXPERIMENT, or nil if the go command in mod (the module's directory)
// does not accept it.
func Env(mod string, env []string) []string {
	cur := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOEXPERIMENT="); ok {
			cur = v
		}
	}
	if cur != "" {
		cur += ","
	}
	out := append(append([]string(nil), env...), "GOEXPERIMENT="+cur+Experiment)
	check := exec.Command("go", "env", "GOEXPERIMENT")
	check.Dir = mod
	check.Env = out
	if check.Run() != nil {
		return nil
	}
	return out
}

// Rebuild builds the daemon of module mod into dir again with Experiment,
// with the go build flags given and the environment env, over the binary a
// build of every command left there. It does nothing where the toolchain
// does not know the experiment, or mod has no daemon.
func Rebuild(mod, dir string, env []string, flags ...string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(mod, Package)); err != nil {
		return nil, nil
	}
	benv := Env(mod, env)
	if benv == nil {
		return nil, nil
	}
	args := append(append([]string{"build"}, flags...), "-o", dir+string(os.PathSeparator), Package)
	cmd := exec.Command("go", args...)
	cmd.Dir = mod
	cmd.Env = benv
	return cmd.CombinedOutput()
}
