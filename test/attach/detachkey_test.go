package attach

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// holdsTTY reports whether session id's daemon has tty open: it does
// while a client has handed it the terminal (ATTACH_TTY).
func holdsTTY(t *testing.T, root, id, tty string) bool {
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	dir := "/proc/" + strconv.Itoa(m.DaemonPid) + "/fd/"
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		if l, _ := os.Readlink(dir + fd.Name()); l == tty {
			return true
		}
	}
	return false
}

// A detach key of one's own, typed in a real terminal (a tmux pane) as
// the user would: Ctrl+\ then reaches the program, a doubled Ctrl+A goes
// through once, and a single Ctrl+A detaches, leaving the session
// running. Both ways of attaching are covered: the daemon reading the
// keyboard itself after the handover (ATTACH_TTY_KEY), and the client
// relaying (its output is a pipe here, so it cannot hand over).
func TestDetachKeyOfOnesOwn(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checking the handover needs /proc")
	}
	for _, c := range []struct {
		name, cmdline string
		handover      bool
	}{
		{"handover", "pty attach --detach-key ctrl+a dk", true},
		{"relay", "pty attach --detach-key ctrl+a dk | cat", false},
		{"env-handover", "PTY_DETACH_KEY=C-a pty attach dk", true},
		{"env-relay", "PTY_DETACH_KEY=C-a pty attach dk | cat", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testutil.Root(t)
			testutil.MustRun(t, root, "run", "-d", "--id", "dk", "--", "sh", "-c", "stty raw -echo; echo ready; exec cat -v")
			tm := testutil.StartTmux(t, root, 24, 80, c.cmdline+"; echo attach-exit=$?")
			tm.WaitText("ready")
			if c.handover {
				testutil.WaitFor(t, 5*time.Second, "the daemon to take the terminal", func() bool { return holdsTTY(t, root, "dk", tm.TTY()) })
			} else if holdsTTY(t, root, "dk", tm.TTY()) {
				t.Fatal("the daemon holds the terminal of a relaying client")
			}
			// Ctrl+\ is an ordinary key now: one press reaches the program.
			tm.Keys("a", `C-\`, "b")
			tm.WaitText(`a^\b`)
			tm.Keys("C-a", "C-a", "c")
			tm.WaitText(`a^\b^Ac`)
			tm.Keys("C-a")
			tm.WaitText("[detached]")
			tm.WaitText("attach-exit=0")
			if s, err := layout.At(root).Load("dk"); err != nil || s.Status != layout.Running {
				t.Fatalf("after detaching the session is %v, %v", s.Status, err)
			}
			testutil.WaitFor(t, 5*time.Second, "the daemon to let go of the terminal", func() bool { return !holdsTTY(t, root, "dk", tm.TTY()) })
		})
	}
}

// --detach-key none: Ctrl+\ goes to the program, pressed once (with a
// detach key it would be held back, waiting for a second press), in both
// ways of attaching and in pty run.
func TestDetachKeyNone(t *testing.T) {
	for _, cmdline := range []string{
		"pty attach --detach-key none nk",
		"pty attach --detach-key none nk | cat",
	} {
		t.Run(cmdline, func(t *testing.T) {
			root := testutil.Root(t)
			testutil.MustRun(t, root, "run", "-d", "--id", "nk", "--", "sh", "-c", "stty raw -echo; echo ready; exec cat -v")
			tm := testutil.StartTmux(t, root, 24, 80, cmdline+"; echo attach-exit=$?")
			tm.WaitText("ready")
			tm.Keys(`C-\`, "x")
			tm.WaitText(`^\x`)
			testutil.MustRun(t, root, "kill", "nk")
			tm.WaitText("attach-exit=")
			if strings.Contains(tm.Screen(), "[detached]") {
				t.Fatalf("detached with no detach key:\n%s", tm.Screen())
			}
		})
	}
}

// pty run attaches with the chosen key too, and peek -f stops at one
// press of it (at Ctrl+C with none).
func TestDetachKeyRunAndPeek(t *testing.T) {
	root := testutil.Root(t)
	tm := testutil.StartTmux(t, root, 24, 80, "pty run --id rk --detach-key ctrl+] -- sh -c 'echo ready; exec cat'; echo run-exit=$?")
	tm.WaitText("ready")
	tm.Keys("C-]")
	tm.WaitText("[detached]")
	tm.WaitText("run-exit=0")

	pk := testutil.StartTmux(t, root, 24, 80, "PTY_DETACH_KEY=ctrl+b pty peek -f rk; echo peek-exit=$?")
	pk.WaitText("ready")
	pk.Keys(`C-\`) // not the key: nothing happens, and nothing is sent
	pk.Keys("C-b")
	pk.WaitText("peek-exit=0")

	// With none, Ctrl+\ does not stop a follower; Ctrl+C does.
	nk := testutil.StartTmux(t, root, 24, 80, "pty peek -f --detach-key none rk; echo peek-exit=$?")
	nk.WaitText("ready")
	nk.Keys(`C-\`, "C-c")
	nk.WaitText("peek-exit=0")
	if s, err := layout.At(root).Load("rk"); err != nil || s.Status != layout.Running {
		t.Fatalf("after run and peek -f detached the session is %v, %v", s.Status, err)
	}
}

// A bad key is one line naming the accepted forms, exit 1, and nothing
// attached; a bad PTY_DETACH_KEY does not stop a command that does not
// attach.
func TestDetachKeyErrors(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ek", "--", "sleep", "60")
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"attach", "--detach-key", "ctrl+[", "ek"}, "--detach-key"},
		{nil, []string{"attach", "--detach-key", "f1", "ek"}, "--detach-key"},
		{nil, []string{"peek", "-f", "--detach-key", "x", "ek"}, "--detach-key"},
		{nil, []string{"run", "--detach-key", "alt+a", "--", "true"}, "--detach-key"},
		{[]string{"PTY_DETACH_KEY=ctrl+shift+a"}, []string{"attach", "ek"}, `PTY_DETACH_KEY="ctrl+shift+a"`},
	} {
		cmd := testutil.Command(t, root, "", c.args...)
		cmd.Env = append(cmd.Env, c.env...)
		r := testutil.RunCmd(t, cmd)
		msg := strings.TrimSpace(r.Stderr)
		if r.Code != 1 || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) || !strings.Contains(msg, "ctrl+a") || !strings.Contains(msg, "none") {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 1 and one line naming the accepted forms", c.env, c.args, r.Code, r.Stderr)
		}
	}
	cmd := testutil.Command(t, root, "", "run", "-d", "--id", "ok", "--", "sleep", "60")
	cmd.Env = append(cmd.Env, "PTY_DETACH_KEY=bogus")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Errorf("run -d with a bad PTY_DETACH_KEY: exit %d, %s", r.Code, r.Stderr)
	}
}

// Ctrl+\ in a terminal that is not raw yet (here: at the restart prompt,
// before anything is attached) is SIGQUIT to the foreground processes; it
// must not kill pty attach with a goroutine dump.
func TestQuitKeyBeforeRawMode(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "qk", "--tag", "keep=true", "--", "sh", "-c", "echo bye")
	// Ended, and past the grace period in which its daemon still answers
	// (an attach then shows the end, not the restart prompt).
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		s, err := layout.At(root).Load("qk")
		_, serr := os.Stat(layout.At(root).Paths("qk").Sock())
		return err == nil && s.Status == layout.Exited && os.IsNotExist(serr)
	})
	// set -m: attach runs as its own foreground job, as from an
	// interactive shell, so the signal is not the wrapping shell's too.
	tm := testutil.StartTmux(t, root, 24, 80, "set -m; pty attach qk; echo attach-exit=$?")
	tm.WaitText("Restart? [Y/n]")
	tm.Keys(`C-\`)
	tm.Keys("n", "Enter")
	scr := tm.WaitText("attach-exit=")
	if !strings.Contains(scr, "attach-exit=0") || strings.Contains(scr, "goroutine") || strings.Contains(scr, "SIGQUIT") {
		t.Fatalf("Ctrl+\\ at the prompt:\n%s", scr)
	}
}
