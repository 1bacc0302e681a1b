package dispatch

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type execCall struct {
	path string
	argv []string
	env  []string
}

func run(t *testing.T, args []string, env []string) (int, string, string, *execCall) {
	t.Helper()
	var out, errb bytes.Buffer
	var call *execCall
	code := Run(Options{Args: args, Env: env}, IO{Out: &out, Err: &errb, Exec: func(path string, argv, env []string) error {
		call = &execCall{path, argv, env}
		return errors.New("not really")
	}})
	return code, out.String(), errb.String(), call
}

// plugin puts an executable pty-NAME in a directory on PATH.
func plugin(t *testing.T, name string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pty-"+name), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return dir
}

func TestRunForwardsEverySubcommand(t *testing.T) {
	dir := plugin(t, "peek")
	// peek included: the dispatcher answers nothing itself.
	_, _, _, call := run(t, []string{"peek", "--plain", "abc"}, []string{"A=1"})
	if call == nil || call.path != filepath.Join(dir, "pty-peek") || strings.Join(call.argv, " ") != "pty-peek --plain abc" {
		t.Fatalf("peek not forwarded: %+v", call)
	}
}

func TestRunRootReplacesEnvironment(t *testing.T) {
	plugin(t, "list")
	root := t.TempDir()
	_, _, _, call := run(t, []string{"--root", root, "ls", "--json"}, []string{"PTY_ROOT=/old", "B=2"})
	if call == nil || strings.Join(call.argv, " ") != "pty-list --json" {
		t.Fatalf("ls not forwarded as list: %+v", call)
	}
	n := 0
	for _, kv := range call.env {
		if strings.HasPrefix(kv, "PTY_ROOT=") {
			n++
			if kv != "PTY_ROOT="+root {
				t.Errorf("env %q, want PTY_ROOT=%s", kv, root)
			}
		}
	}
	if n != 1 {
		t.Errorf("PTY_ROOT set %d times in %q", n, call.env)
	}
	code, _, stderr, _ := run(t, []string{"--root"}, nil)
	if code != 1 || !strings.Contains(stderr, "--root requires a directory") {
		t.Errorf("--root without a directory: %d %q", code, stderr)
	}
}

func TestRunHelpVersionAndUnknown(t *testing.T) {
	plugin(t, "zzplug")
	code, out, _, call := run(t, []string{"help"}, nil)
	if code != 0 || call != nil || !strings.Contains(out, "  peek ") || !strings.Contains(out, "zzplug") {
		t.Errorf("help: %d %q", code, out)
	}
	code, out, _, _ = run(t, []string{"--version"}, nil)
	if code != 0 || !strings.HasPrefix(out, "pty ") {
		t.Errorf("version: %d %q", code, out)
	}
	code, _, stderr, _ := run(t, []string{"zzplu"}, nil)
	if code != 1 || !strings.Contains(stderr, `unknown command "zzplu"`) || !strings.Contains(stderr, "zzplug") {
		t.Errorf("unknown: %d %q", code, stderr)
	}
	code, _, stderr, _ = run(t, []string{"--frobnicate"}, nil)
	if code != 1 || !strings.Contains(stderr, `unknown flag "--frobnicate"`) {
		t.Errorf("unknown flag: %d %q", code, stderr)
	}
}
