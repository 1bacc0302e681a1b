package exec

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// newCommand is what the sessions exec into: it appends a line to ./out
// and exits 7, so each run of it is counted and its status is seen.
const newCommand = `echo new >> out; exit 7`

// startExecing starts session id whose first command execs into
// newCommand, and waits for that to have run once and exited.
func startExecing(t *testing.T, root, id string, extra ...string) (cwd string) {
	t.Helper()
	cwd = t.TempDir()
	args := append([]string{"run", "-d", "--id", id, "--cwd", cwd}, extra...)
	args = append(args, "--", "sh", "-c", `echo first; pty exec -- sh -c '`+newCommand+`'`)
	testutil.MustRun(t, root, args...)
	waitEnded(t, root, id)
	if n := runs(cwd); n != 1 {
		t.Fatalf("the exec'd command ran %d times, want 1", n)
	}
	return cwd
}

func runs(cwd string) int {
	b, _ := os.ReadFile(filepath.Join(cwd, "out"))
	return strings.Count(string(b), "new\n")
}

func waitEnded(t *testing.T, root, id string) layout.Session {
	t.Helper()
	var s layout.Session
	testutil.WaitForState(t, 30*time.Second, "session "+id+" to exit", func() (bool, string) {
		var err error
		s, err = layout.At(root).Load(id)
		return err == nil && s.Status == layout.Exited, string(s.Status)
	})
	return s
}

func TestExecRecordsTheCommandAndRestartRunsIt(t *testing.T) {
	root := testutil.Root(t)
	cwd := startExecing(t, root, "s")
	s := waitEnded(t, root, "s")
	m := s.Meta
	if m.ExitCode == nil || *m.ExitCode != 7 {
		t.Errorf("the session's exit code is %v, want the exec'd command's 7", m.ExitCode)
	}
	if filepath.Base(m.Command) != "sh" || !filepath.IsAbs(m.Command) {
		t.Errorf("command = %q, want sh's absolute path", m.Command)
	}
	if strings.Join(m.Args, "|") != "-c|"+newCommand {
		t.Errorf("args = %q", m.Args)
	}
	if m.DisplayCommand != "sh -c "+newCommand {
		t.Errorf("displayCommand = %q", m.DisplayCommand)
	}
	evs, err := layout.At(root).Events("s")
	if err != nil {
		t.Fatal(err)
	}
	var execs []layout.Event
	for _, e := range evs {
		if e.Type == layout.EventSessionExec {
			execs = append(execs, e)
		}
	}
	if len(execs) != 1 {
		t.Fatalf("%d session_exec events, want 1: %v", len(execs), evs)
	}
	want := map[string]any{"previousCommand": "sh -c echo first; pty exec -- sh -c '" + newCommand + "'", "command": "sh -c " + newCommand}
	for k, v := range want {
		if execs[0].Fields[k] != v {
			t.Errorf("session_exec %s = %v, want %v", k, execs[0].Fields[k], v)
		}
	}
	if execs[0].Session != "s" || execs[0].TS == "" {
		t.Errorf("session_exec envelope: %+v", execs[0])
	}

	testutil.MustRun(t, root, "restart", "s")
	testutil.WaitFor(t, 30*time.Second, "the restart to run the exec'd command", func() bool { return runs(cwd) == 2 })
	if s := waitEnded(t, root, "s"); s.Meta.ExitCode == nil || *s.Meta.ExitCode != 7 {
		t.Errorf("after restart the exit code is %v, want 7", s.Meta.ExitCode)
	}
}

func TestGcRespawnRunsTheExecdCommand(t *testing.T) {
	root := testutil.Root(t)
	cwd := startExecing(t, root, "perm", "--tag", "strategy=permanent")
	testutil.MustRun(t, root, "gc")
	testutil.WaitFor(t, 30*time.Second, "gc's respawn to run the exec'd command", func() bool { return runs(cwd) == 2 })
}

// refused runs pty exec with env and checks it refused in one line with
// want in it, ran nothing and changed nothing.
func refused(t *testing.T, root, id, want string, env []string, args ...string) {
	t.Helper()
	var before []byte
	if id != "" {
		before, _ = os.ReadFile(layout.At(root).Paths(id).Meta())
	}
	marker := filepath.Join(t.TempDir(), "ran")
	if len(args) == 0 {
		args = []string{"--", "sh", "-c", "echo ran > " + marker}
	}
	cmd := testutil.Command(t, root, "", append([]string{"exec"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	r := testutil.RunCmd(t, cmd)
	if r.Code != 1 || r.Stdout != "" {
		t.Errorf("exit %d, stdout %q; want 1 and nothing", r.Code, r.Stdout)
	}
	if strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q, want one line with %q", r.Stderr, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command was run")
	}
	if id != "" {
		after, _ := os.ReadFile(layout.At(root).Paths(id).Meta())
		if string(after) != string(before) {
			t.Errorf("the record changed:\n%s\n%s", before, after)
		}
		evs, _ := layout.At(root).Events(id)
		for _, e := range evs {
			if e.Type == layout.EventSessionExec {
				t.Errorf("a session_exec was logged: %+v", e)
			}
		}
	}
}

func gen(t *testing.T, root, id string) string {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.Generation
}

func TestExecRefusals(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "live", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "toml", "--tag", "ptyfile=/srv/app/pty.toml", "--", "sleep", "1000")
	in := func(id string) []string {
		return []string{"PTY_SESSION=" + id, "PTY_SESSION_GENERATION=" + gen(t, root, id)}
	}

	t.Run("outside a session", func(t *testing.T) { refused(t, root, "", "not inside a pty session", nil) })
	t.Run("pty.toml", func(t *testing.T) { refused(t, root, "toml", "/srv/app/pty.toml", in("toml")) })
	t.Run("no generation", func(t *testing.T) {
		refused(t, root, "live", "PTY_SESSION_GENERATION", []string{"PTY_SESSION=live"})
	})
	t.Run("no record", func(t *testing.T) {
		refused(t, root, "", "has no record", []string{"PTY_SESSION=gone", "PTY_SESSION_GENERATION=g"})
	})
	t.Run("no command", func(t *testing.T) { refused(t, root, "live", "no command given", in("live"), "--") })
	t.Run("command not found", func(t *testing.T) {
		refused(t, root, "live", "not found", in("live"), "--", "no-such-program-here")
	})
	t.Run("replacement generation", func(t *testing.T) {
		old := in("live")
		testutil.MustRun(t, root, "kill", "live")
		testutil.MustRun(t, root, "restart", "live")
		if gen(t, root, "live") == strings.TrimPrefix(old[1], "PTY_SESSION_GENERATION=") {
			t.Fatal("restart kept the generation")
		}
		refused(t, root, "live", `pty exec: session "live" belongs to a replacement generation; command was not run.`, old)
	})
}

// TestExecPassesSignalsOn sends SIGTERM to pty exec itself: the command
// it runs gets it and exec exits with the command's status.
func TestExecPassesSignalsOn(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sig", "--", "sleep", "1000")
	dir := t.TempDir()
	cmd := testutil.Command(t, root, "exec", "--", "sh", "-c", `trap 'echo term > got; exit 3' TERM; echo > ready; while :; do sleep 0.05; done`)
	cmd.Dir = dir
	// Its own process group, so that cleanup can end the command too
	// when exec failed to pass the signal on.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	cmd.Env = append(cmd.Env, "PTY_SESSION=sig", "PTY_SESSION_GENERATION="+gen(t, root, "sig"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "the command to start", func() bool { _, err := os.Stat(filepath.Join(dir, "ready")); return err == nil })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pty exec did not end after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit %d, want the command's 3", code)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "got")); string(b) != "term\n" {
		t.Errorf("the command did not get SIGTERM: %q", b)
	}
}

// logSignals is a perl program that appends each SIGHUP and SIGTERM it gets
// to $ARGV[0], says "prog-ready", and exits 300 ms after its first SIGTERM
// (or SIGHUP, with $ARGV[1] "hup"): a program that stops gently.
const logSignals = `perl -MTime::HiRes=time,sleep -e 'sub h { open(F, ">>", $ARGV[0]); print F "$_[0]\n"; close F; $end ||= time + 0.3 if $_[0] eq "TERM" || $ARGV[1] eq "hup" } $SIG{HUP} = $SIG{TERM} = \&h; $| = 1; print "prog-", "ready\n"; sleep 0.01 until $end && time > $end'`

func peekHas(t *testing.T, root, id, text string, n int) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, id+" to show "+text, func() (bool, string) {
		r := testutil.Run(t, root, "peek", "--plain", id)
		return strings.Count(r.Stdout, text) >= n, r.Stdout
	})
}

// What pty exec runs gets each signal once, as it would without pty exec:
// a pty exec that ran it as a child and passed signals on passed on what
// the child had already got through their process group (a shell hanging
// up its job, the daemon's SIGTERM to the session's groups), so a program
// that stops gently on a first signal got a second.
func TestExecedCommandGetsEachSignalOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	for _, tc := range []struct {
		name, line, want string
	}{
		// A shell's foreground job: the shell hangs it up.
		{"job", "pty exec -- " + logSignals + " %s hup", "HUP\n"},
		// The session's command: the daemon hangs it up, and it
		// ignores that, then TERMs its process group.
		{"command", "exec pty exec -- " + logSignals + " %s", "HUP\nTERM\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.Root(t)
			got := filepath.Join(t.TempDir(), "signals")
			testutil.MustRun(t, root, "run", "-d", "--id", "x", "--env", "PS1=ready> ", "--", "bash", "--norc", "-i")
			peekHas(t, root, "x", "ready>", 1)
			testutil.MustRun(t, root, "send", "x", fmt.Sprintf(tc.line, got)+"\r")
			peekHas(t, root, "x", "prog-ready", 1)
			testutil.MustRun(t, root, "kill", "x")
			if b, _ := os.ReadFile(got); string(b) != tc.want {
				t.Errorf("the command got %q, want %q", b, tc.want)
			}
		})
	}
}

// Ctrl+C reaches what pty exec runs from the terminal, and is not ignored
// there: a pty exec that ignored it for itself left it ignored in its child.
func TestExecedCommandStopsOnCtrlC(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "c", "--env", "PS1=ready> ", "--", "bash", "--norc", "-i")
	peekHas(t, root, "c", "ready>", 1)
	testutil.MustRun(t, root, "send", "c", "pty exec -- sh -c 'echo slee''ping; exec sleep 1000'\r")
	peekHas(t, root, "c", "sleeping", 1)
	testutil.MustRun(t, root, "send", "c", "\x03")
	peekHas(t, root, "c", "ready>", 2)
}
