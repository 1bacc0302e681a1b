package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/term"
)

// userTerm is a pty standing in for the user's terminal, with a pty
// command running on it.
type userTerm struct {
	f    *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	code int
}

func onTerminal(t *testing.T, root string, rows, cols int, env []string, args ...string) *userTerm {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(cmd.Env, env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatal(err)
	}
	u := &userTerm{f: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		b := make([]byte, 32<<10)
		for {
			n, err := f.Read(b)
			u.mu.Lock()
			u.out.Write(b[:n])
			u.mu.Unlock()
			if err != nil {
				break
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			u.code = ee.ExitCode()
		}
		close(u.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-u.done
		f.Close()
	})
	return u
}

func (u *userTerm) output() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out.String()
}

func (u *userTerm) waitFor(t *testing.T, s string) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "terminal to show "+strings.TrimSpace(s), func() bool { return strings.Contains(u.output(), s) })
}

func (u *userTerm) write(t *testing.T, s string) {
	t.Helper()
	if _, err := u.f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func (u *userTerm) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-u.done:
		return u.code
	case <-time.After(10 * time.Second):
		t.Fatalf("command did not exit; output so far: %q", u.output())
		return -1
	}
}

func status(t *testing.T, root, id string) map[string]any {
	t.Helper()
	raw, err := client.Status(root, id, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	return m
}

func size(st map[string]any) (int, int) {
	term := st["terminal"].(map[string]any)
	return int(term["rows"].(float64)), int(term["cols"].(float64))
}

func TestAttachTypeEchoDetach(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "cat", "--", "sh", "-c", "echo ready; cat")
	u := onTerminal(t, root, 24, 80, nil, "attach", "cat")
	u.waitFor(t, "ready")
	u.write(t, "ping-123\r")
	u.waitFor(t, "ping-123\r\nping-123")
	u.write(t, "\x1c")
	u.waitFor(t, "[detached]")
	if code := u.exit(t); code != 0 {
		t.Fatalf("detach exit code %d", code)
	}
	// The session is still there.
	if s, err := layout.Load(root, "cat"); err != nil || s.Status != layout.Running {
		t.Fatalf("after detach: %v %v", s.Status, err)
	}
	m, _ := layout.ReadMetadata(root, "cat")
	testutil.WaitFor(t, 5*time.Second, "lastAttachAt", func() bool {
		m, _ = layout.ReadMetadata(root, "cat")
		return m.LastAttachAt != ""
	})
}

func TestDoubleCtrlBackslashIsSentThrough(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "raw", "--", "sh", "-c", "stty raw -echo; echo ready; cat -v")
	u := onTerminal(t, root, 24, 80, nil, "attach", "raw")
	u.waitFor(t, "ready")
	u.write(t, "a\x1c\x1cb")
	u.waitFor(t, `a^\b`)
	u.write(t, "\x1c")
	u.waitFor(t, "[detached]")
	if code := u.exit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestAttachSeesExit(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ex", "--", "sh", "-c", "echo ready; read x; exit 5")
	u := onTerminal(t, root, 24, 80, nil, "a", "ex")
	u.waitFor(t, "ready")
	u.write(t, "\r")
	u.waitFor(t, "[ex exited with code 5]")
	if code := u.exit(t); code != 5 {
		t.Fatalf("exit code %d, want 5", code)
	}
}

func TestRunAttachedThroughDispatcher(t *testing.T) {
	root := testutil.Root(t)
	u := onTerminal(t, root, 24, 80, nil, "run", "--id", "fg", "--", "sh", "-c", "echo in-session-$PTY_SESSION; read x; exit 3")
	u.waitFor(t, "in-session-fg")
	u.write(t, "\r")
	u.waitFor(t, "[fg exited with code 3]")
	if code := u.exit(t); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
}

func TestSizeIsMinimumOfWriters(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sz", "--", "sh", "-c", "echo ready; sleep 60")
	a := onTerminal(t, root, 30, 100, nil, "attach", "sz")
	a.waitFor(t, "ready")
	b := onTerminal(t, root, 40, 90, nil, "attach", "sz")
	b.waitFor(t, "ready")
	testutil.WaitFor(t, 5*time.Second, "size 30x90", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 30 && c == 90
	})
	// A read-only follower never constrains the size.
	f := onTerminal(t, root, 10, 20, nil, "peek", "-f", "sz")
	f.waitFor(t, "ready")
	st := status(t, root, "sz")
	if r, c := size(st); r != 30 || c != 90 {
		t.Errorf("with a 10x20 follower the size is %dx%d, want 30x90", r, c)
	}
	cl := st["clients"].(map[string]any)
	if cl["attached"].(float64) != 2 || cl["readOnly"].(float64) != 1 {
		t.Errorf("clients = %v", cl)
	}
	// When the smaller writer leaves, the size grows to the other's.
	a.write(t, "\x1c")
	a.waitFor(t, "[detached]")
	testutil.WaitFor(t, 5*time.Second, "size 40x90", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 40 && c == 90
	})
	// The user resizes their terminal: attach forwards it.
	if err := pty.Setsize(b.f, &pty.Winsize{Rows: 35, Cols: 85}); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 5*time.Second, "size 35x85 after SIGWINCH", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 35 && c == 85
	})
	f.write(t, "\x1c")
	f.waitFor(t, "[detached]")
}

func TestDeadSessionPromptAndRestart(t *testing.T) {
	root := testutil.Root(t)
	keep := []string{"PTY_REAP_ON_EXIT=false"}
	cmd := testutil.Command(t, root, "", "run", "-d", "--id", "dead", "--", "sh", "-c", "echo started-once; read x; exit 2")
	cmd.Env = append(cmd.Env, keep...)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatal(r)
	}
	if err := client.Send(root, "dead", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "session to end", func() bool {
		s, err := layout.Load(root, "dead")
		return err == nil && s.Status == layout.Exited
	})
	r := testutil.Run(t, root, "attach", "--no-restart", "dead")
	if r.Code != 1 || r.Stderr != "Session \"dead\" is not running (status: exited).\n" {
		t.Errorf("--no-restart: %+v", r)
	}
	if r := testutil.Run(t, root, "attach", "-r", "--no-restart", "dead"); r.Code != 1 {
		t.Errorf("-r with --no-restart: %+v", r)
	}
	no := testutil.Command(t, root, "", "attach", "dead")
	no.Stdin = strings.NewReader("n\n")
	r = testutil.RunCmd(t, no)
	if r.Code != 0 || !strings.Contains(r.Stdout, "started-once") || !strings.Contains(r.Stdout, "exited with code 2") ||
		!strings.Contains(r.Stdout, "Command was: sh -c echo started-once; read x; exit 2") || !strings.Contains(r.Stdout, "Restart? [Y/n]") {
		t.Errorf("prompt: %+v", r)
	}
	u := onTerminal(t, root, 24, 80, keep, "attach", "-r", "dead")
	u.waitFor(t, "started-once")
	m, _ := layout.ReadMetadata(root, "dead")
	if m.Exited() {
		t.Errorf("restarted record still has an exit: %+v", m)
	}
	u.write(t, "\r")
	u.waitFor(t, "[dead exited with code 2]")
	if code := u.exit(t); code != 2 {
		t.Errorf("exit code %d", code)
	}
}

func TestAttachRefusedWhenNested(t *testing.T) {
	root := testutil.Root(t)
	cmd := testutil.Command(t, root, "", "attach", "whatever")
	cmd.Env = append(cmd.Env, "PTY_SESSION=outer")
	r := testutil.RunCmd(t, cmd)
	if r.Code != 1 || !strings.Contains(r.Stderr, `inside pty session "outer"`) || !strings.Contains(r.Stderr, `Ctrl+\`) {
		t.Errorf("nested attach: %+v", r)
	}
}

// TestDetachMessageBelowScreen renders what the user's terminal received
// and checks that "[detached]" does not overwrite the session's screen:
// resetting modes on the way out moves the cursor, so the client must put
// it below the content before printing.
func TestDetachMessageBelowScreen(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "w", "--", "sh", "-c", "echo line-one; echo line-two; cat")
	u := onTerminal(t, root, 24, 80, nil, "attach", "w")
	u.waitFor(t, "line-two")
	u.write(t, "\x1c")
	u.waitFor(t, "[detached]")
	u.exit(t)
	scr := term.New(24, 80, term.Options{})
	scr.Write([]byte(u.output()))
	lines := strings.Split(scr.PlainText(true), "\n")
	var one, two, det = -1, -1, -1
	for i, l := range lines {
		switch {
		case strings.Contains(l, "line-one"):
			one = i
		case strings.Contains(l, "line-two"):
			two = i
		case strings.Contains(l, "[detached]"):
			det = i
		}
	}
	if one < 0 || two < 0 || det <= two {
		t.Fatalf("after detach the terminal shows line-one at %d, line-two at %d, [detached] at %d:\n%s", one, two, det, scr.PlainText(true))
	}
}

// Ctrl+\ becomes SIGQUIT whenever the terminal is not in raw mode (before
// attach sets it, or between the picker and an attach); it must not kill
// the client with a core dump. The session's own processes keep the
// default disposition.
func TestQuitSignalDoesNotKillAttach(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "q", "--", "sh", "-c", "echo ready; cat")
	u := onTerminal(t, root, 24, 80, nil, "attach", "q")
	u.waitFor(t, "ready")
	u.cmd.Process.Signal(syscall.SIGQUIT)
	u.write(t, "still-here\r")
	u.waitFor(t, "still-here\r\nstill-here")
	u.write(t, "\x1c")
	u.waitFor(t, "[detached]")
	if code := u.exit(t); code != 0 {
		t.Fatalf("exit code %d after SIGQUIT and detach", code)
	}
}
