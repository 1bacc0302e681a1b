// Package testutil drives the real pty binaries in tests: it builds every
// cmd/* once per source for all test processes, gives each test its own
// short PTY_ROOT, and kills any daemon left in that root when the test
// ends.
package testutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// ModuleRoot is the repository root (where go.mod is).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	mod, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// BinDir returns the directory holding every command built from the
// module's current source. The build is shared by all test processes
// (see cachedBinDir): the first to need a source's build makes it, the
// others wait for it.
func BinDir(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		mod, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		binDir, buildErr = cachedBinDir(mod)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// Root makes a fresh, short PTY_ROOT (sockets are limited to 104 bytes)
// and registers cleanup that stops every daemon whose pid file is in it.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "pt")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	t.Cleanup(func() {
		KillDaemons(dir)
		os.RemoveAll(dir)
	})
	return dir
}

// KillDaemons SIGKILLs everything that runs for root: the daemons its pid
// files name, and the sessions' processes (everything whose environment
// has PTY_ROOT=root), which a SIGKILLed daemon would leave running. A pid
// from a pid file is killed only if its arguments say it is that
// session's daemon: a pid file left by a crashed daemon may name any
// process by now, another test's included.
func KillDaemons(root string) {
	pids, _ := filepath.Glob(filepath.Join(root, "*.pid"))
	for _, p := range pids {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 1 || pid == os.Getpid() {
			continue // never the test process itself
		}
		if daemonOf(pid, root, strings.TrimSuffix(filepath.Base(p), ".pid")) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	mark := []byte("\x00PTY_ROOT=" + root + "\x00")
	names, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, n := range names {
		env, err := os.ReadFile(n)
		if err != nil || !bytes.Contains(append([]byte{0}, env...), mark) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(n))); err == nil && pid > 1 && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// daemonOf reports whether pid runs as the daemon of session id in root
// ("pty-daemon <id> <generation> <root>", or an older "pty-daemon <id>").
func daemonOf(pid int, root, id string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if filepath.Base(args[0]) != "pty-daemon" || len(args) < 2 || args[1] != id {
		return false
	}
	return len(args) != 4 || args[3] == root
}

// Env returns the environment for running pty binaries against root: the
// built binaries first on PATH, PTY_ROOT set, PTY_SESSION unset (tests may
// themselves run inside a pty session).
func Env(t testing.TB, root string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "PTY_ROOT", "PTY_SESSION", "PTY_SESSION_DIR", "PATH", "PTY_SESSION_GENERATION", "TMUX", "PTY_SCROLLBACK":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PTY_ROOT="+root, "PATH="+BinDir(t)+":"+os.Getenv("PATH"))
}

// Command returns an exec.Cmd running "pty-<sub> args" (or "pty" when sub
// is "") against root.
func Command(t testing.TB, root, sub string, args ...string) *exec.Cmd {
	t.Helper()
	name := "pty"
	if sub != "" {
		name = "pty-" + sub
	}
	cmd := exec.Command(filepath.Join(BinDir(t), name), args...)
	cmd.Env = Env(t, root)
	return cmd
}

// Result is a finished command's output.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs "pty args..." through the dispatcher and waits, at most 60 s.
func Run(t testing.TB, root string, args ...string) Result {
	t.Helper()
	return RunCmd(t, Command(t, root, "", args...))
}

// RunCmd runs a prepared command and collects its output and exit code.
func RunCmd(t testing.TB, cmd *exec.Cmd) Result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v did not finish in 60s; stdout=%q stderr=%q", cmd.Args, out.String(), errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", cmd.Args, err)
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
}

// MustRun is Run that fails the test on a non-zero exit.
func MustRun(t testing.TB, root string, args ...string) Result {
	t.Helper()
	r := Run(t, root, args...)
	if r.Code != 0 {
		t.Fatalf("pty %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// WaitFor polls cond until it is true or timeout passes, then fails with msg.
func WaitFor(t testing.TB, timeout time.Duration, msg string, cond func() bool) {
	t.Helper()
	WaitForState(t, timeout, msg, func() (bool, string) { return cond(), "" })
}

// WaitForState is WaitFor for a condition that can describe what it saw:
// on timeout the failure shows the last description, so the log says how
// far from the condition things were.
func WaitForState(t testing.TB, timeout time.Duration, msg string, cond func() (ok bool, state string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for delay := time.Millisecond; ; {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if state != "" {
				state = "; last seen: " + state
			}
			t.Fatalf("timed out after %v waiting for %s%s", timeout, msg, state)
		}
		time.Sleep(delay)
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

// FakeDaemon starts a stand-in for the daemon of session id (generation
// gen) in root, for tests and benchmarks that fabricate "running" sessions
// without paying for real daemons. Liveness checks insist on a daemon's
// identity, its arguments "pty-daemon <id> <gen> <root>", so this is a
// shell run under exactly those arguments: sh takes its first argument,
// the id, as the script to run, and the script waits on a pipe that is
// closed at cleanup.
func FakeDaemon(t testing.TB, root, id, gen string) int {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, id), []byte("read x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"pty-daemon", id, gen, root}, Dir: dir, Stdin: r}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close(); cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// MissingTool skips a test that needs something this machine lacks (a
// program, root, a kernel feature), naming it. Where PTY_TOOLS_REQUIRED=1
// (CI sets it after installing everything the tests use) it fails
// instead, so CI cannot pass by skipping.
func MissingTool(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("PTY_TOOLS_REQUIRED") == "1" {
		t.Fatalf("%s is required (PTY_TOOLS_REQUIRED=1) but missing", what)
	}
	t.Skipf("%s is missing", what)
}

// DirNames lists the names in dir, sorted (what a test checks a command
// left behind in a root).
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// WriteRecord writes m as session id's record (<id>.json) in root, for
// tests that fabricate a registry state no command makes.
func WriteRecord(t testing.TB, root, id string, m json.Marshaler) {
	t.Helper()
	b, err := m.MarshalJSON()
	if err == nil {
		err = os.WriteFile(filepath.Join(root, id+".json"), b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}
