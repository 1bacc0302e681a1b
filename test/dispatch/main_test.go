package dispatch

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/commands"
)

// plugin writes an executable pty-<name> script into a fresh directory and
// returns that directory, to be put on PATH.
func plugin(t *testing.T, name, script string) string {
	dir := t.TempDir()
	p := filepath.Join(dir, "pty-"+name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func ptyCmd(t *testing.T, root, pathDir string, args ...string) *exec.Cmd {
	cmd := testutil.Command(t, root, "", args...)
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=" + pathDir + ":" + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return cmd
}

func TestPluginPassThrough(t *testing.T) {
	root := testutil.Root(t)
	dir := plugin(t, "foo", `read line; echo "args=$* line=$line root=$PTY_ROOT"; echo "fd3" >&3; exit 7`+"\n")
	extra, err := os.CreateTemp(t.TempDir(), "fd3")
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	cmd := ptyCmd(t, root, dir, "--root", other, "foo", "a", "b c")
	cmd.Stdin = strings.NewReader("hello\n")
	cmd.ExtraFiles = []*os.File{extra}
	r := testutil.RunCmd(t, cmd)
	if r.Code != 7 {
		t.Errorf("exit status %d, want 7 (stderr %q)", r.Code, r.Stderr)
	}
	if want := "args=a b c line=hello root=" + other + "\n"; r.Stdout != want {
		t.Errorf("stdout %q, want %q", r.Stdout, want)
	}
	b, _ := os.ReadFile(extra.Name())
	if string(b) != "fd3\n" {
		t.Errorf("inherited fd 3 got %q", b)
	}
}

func TestSignalReachesPlugin(t *testing.T) {
	root := testutil.Root(t)
	// Named gc on purpose: a timer's SIGTERM to the pid that "pty gc"
	// started as must reach the gc code, not a wrapper.
	dir := plugin(t, "gctest", `trap 'echo got-TERM; exit 0' TERM; echo ready; while :; do sleep 0.05; done`+"\n")
	cmd := ptyCmd(t, root, dir, "gctest")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("plugin did not start: %q", sc.Text())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !sc.Scan() || sc.Text() != "got-TERM" {
		t.Errorf("plugin did not see SIGTERM sent to the pty pid: %q", sc.Text())
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("plugin did not exit")
	}
}

func TestUnknownCommand(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.Run(t, root, "lsit")
	if r.Code != 1 || !strings.Contains(r.Stderr, `pty: unknown command "lsit"`) {
		t.Errorf("code %d stderr %q", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "list") {
		t.Errorf("no suggestion in %q", r.Stderr)
	}
	if r.Stdout != "" {
		t.Errorf("stdout %q, want nothing", r.Stdout)
	}
}

func TestRootFlag(t *testing.T) {
	root := testutil.Root(t)
	for _, args := range [][]string{{"--root"}, {"--root", "--version"}, {"--root="}} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "--root requires a directory") {
			t.Errorf("%v: code %d stderr %q", args, r.Code, r.Stderr)
		}
	}
	long := "/tmp/" + strings.Repeat("x", 100)
	r := testutil.Run(t, root, "--root", long, "list")
	if r.Code != 1 || !strings.Contains(r.Stderr, "104") {
		t.Errorf("long root: code %d stderr %q", r.Code, r.Stderr)
	}
}

func TestHelpAndVersion(t *testing.T) {
	root := testutil.Root(t)
	dir := plugin(t, "zzplug", "exit 0\n")
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		r := testutil.RunCmd(t, ptyCmd(t, root, dir, args...))
		if r.Code != 0 || !strings.Contains(r.Stdout, "run ") || !strings.Contains(r.Stdout, "zzplug") {
			t.Errorf("%v: code %d stdout %q", args, r.Code, r.Stdout)
		}
	}
	r := testutil.Run(t, root, "--version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "pty ") || !strings.Contains(r.Stdout, "commit ") {
		t.Errorf("version: %q", r.Stdout)
	}
}

// TestEverySubcommandHasHelp runs "pty <sub> --help" for every pty-* binary
// built from cmd/.
func TestEverySubcommandHasHelp(t *testing.T) {
	root := testutil.Root(t)
	bins, _ := filepath.Glob(filepath.Join(testutil.BinDir(t), "pty-*"))
	if len(bins) == 0 {
		t.Skip("no subcommands built yet")
	}
	for _, b := range bins {
		sub := strings.TrimPrefix(filepath.Base(b), "pty-")
		if slices.Contains(commands.Internal, sub) {
			continue // run by pty's commands, not by people
		}
		r := testutil.Run(t, root, sub, "--help")
		if r.Code != 0 || len(r.Stdout) < 20 || !strings.Contains(r.Stdout, "pty "+sub) {
			t.Errorf("pty %s --help: code %d stdout %q stderr %q", sub, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// TestEverySubcommandNamesBadFlagsAsTyped checks that every command
// reports an unknown flag and a bad value the way people type flags,
// never in the flag package's Go-program wording.
func TestEverySubcommandNamesBadFlagsAsTyped(t *testing.T) {
	root := testutil.Root(t)
	bins, _ := filepath.Glob(filepath.Join(testutil.BinDir(t), "pty-*"))
	for _, b := range bins {
		sub := strings.TrimPrefix(filepath.Base(b), "pty-")
		if slices.Contains(commands.Internal, sub) {
			continue
		}
		r := testutil.Run(t, root, sub, "--no-such-flag")
		want := "pty: unknown flag --no-such-flag (see 'pty " + sub + " --help')\n"
		if r.Code != 1 || r.Stderr != want {
			t.Errorf("pty %s --no-such-flag: code %d stderr %q, want %q", sub, r.Code, r.Stderr, want)
		}
	}
	// A near miss names the flag meant, as a mistyped command does.
	r := testutil.Run(t, root, "list", "--jsn")
	if want := "pty: unknown flag --jsn; did you mean --json? (see 'pty list --help')\n"; r.Code != 1 || r.Stderr != want {
		t.Errorf("list --jsn: code %d stderr %q, want %q", r.Code, r.Stderr, want)
	}
	r = testutil.Run(t, root, "run", "--rows", "abc", "--", "true")
	if want := "pty: --rows: \"abc\" is not a whole number (see 'pty run --help')\n"; r.Code != 1 || r.Stderr != want {
		t.Errorf("run --rows abc: code %d stderr %q, want %q", r.Code, r.Stderr, want)
	}
}

// TestRootFlagAnywhere: --root DIR works after the command name and
// among its arguments, as the original pty accepts it.
func TestRootFlagAnywhere(t *testing.T) {
	root := testutil.Root(t)
	other := testutil.Root(t)
	testutil.MustRun(t, other, "run", "-d", "--id", "elsewhere", "--", "sleep", "60")
	for _, args := range [][]string{
		{"list", "--root", other},
		{"--root", other, "list"},
		{"list", "--json", "--root=" + other},
	} {
		r := testutil.MustRun(t, root, args...)
		if !strings.Contains(r.Stdout, "elsewhere") {
			t.Errorf("pty %v: %q does not list the session in %s", args, r.Stdout, other)
		}
	}
	testutil.MustRun(t, root, "run", "-d", "--root", other, "--id", "second", "--", "sleep", "60")
	testutil.MustRun(t, root, "peek", "second", "--root", other)
	if _, err := os.Stat(filepath.Join(root, "second.json")); err == nil {
		t.Errorf("run --root %s wrote into PTY_ROOT %s", other, root)
	}
}

// The original's commands that are gone say what replaced them, in one
// line, rather than "unknown command" with a far-fetched suggestion.
func TestRetiredCommandsSayWhatReplacedThem(t *testing.T) {
	root := testutil.Root(t)
	for sub, want := range map[string]string{"supervisor": "pty gc install", "wrap": "removed"} {
		r := testutil.Run(t, root, sub, "start")
		if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, want) || r.Stdout != "" {
			t.Errorf("pty %s: %+v, want one line on stderr with %q, exit 1", sub, r, want)
		}
	}
}
