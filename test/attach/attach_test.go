package attach

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/relaunchtest"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// onTerminal runs "pty args..." against root on a rows x cols terminal
// standing in for the user's.
func onTerminal(t *testing.T, root string, rows, cols int, env []string, args ...string) *testutil.Terminal {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(cmd.Env, env...)
	return testutil.StartTerminal(t, cmd, rows, cols)
}

func status(t *testing.T, root, id string) proto.StatusReply {
	t.Helper()
	raw, err := client.Status(root, id, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	st, err := proto.ParseStatus(raw)
	if err != nil {
		t.Fatalf("STATUS %s: %v", raw, err)
	}
	return st
}

func size(st proto.StatusReply) (int, int) { return st.Terminal.Rows, st.Terminal.Cols }

func TestAttachTypeEchoDetach(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "cat", "--", "sh", "-c", "echo ready; cat")
	u := onTerminal(t, root, 24, 80, nil, "attach", "cat")
	u.WaitOutput(t, "ready")
	u.Write(t, "ping-123\r")
	u.WaitOutput(t, "ping-123\r\nping-123")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	if code := u.Exit(t); code != 0 {
		t.Fatalf("detach exit code %d", code)
	}
	// The session is still there.
	if s, err := layout.At(root).Load("cat"); err != nil || s.Status != layout.Running {
		t.Fatalf("after detach: %v %v", s.Status, err)
	}
	m, _ := layout.At(root).Metadata("cat")
	testutil.WaitFor(t, 5*time.Second, "lastAttachAt", func() bool {
		m, _ = layout.At(root).Metadata("cat")
		return m.LastAttachAt != ""
	})
}

func TestDoubleCtrlBackslashIsSentThrough(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "raw", "--", "sh", "-c", "stty raw -echo; echo ready; cat -v")
	u := onTerminal(t, root, 24, 80, nil, "attach", "raw")
	u.WaitOutput(t, "ready")
	u.Write(t, "a\x1c\x1cb")
	u.WaitOutput(t, `a^\b`)
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	if code := u.Exit(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestAttachSeesExit(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ex", "--", "sh", "-c", "echo ready; read x; exit 5")
	u := onTerminal(t, root, 24, 80, nil, "a", "ex")
	u.WaitOutput(t, "ready")
	u.Write(t, "\r")
	u.WaitOutput(t, "[ex exited with code 5]")
	if code := u.Exit(t); code != 5 {
		t.Fatalf("exit code %d, want 5", code)
	}
}

func TestRunAttachedThroughDispatcher(t *testing.T) {
	root := testutil.Root(t)
	u := onTerminal(t, root, 24, 80, nil, "run", "--id", "fg", "--", "sh", "-c", "echo in-session-$PTY_SESSION; read x; exit 3")
	u.WaitOutput(t, "in-session-fg")
	u.Write(t, "\r")
	u.WaitOutput(t, "[fg exited with code 3]")
	if code := u.Exit(t); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
}

func TestSizeIsMinimumOfWriters(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sz", "--", "sh", "-c", "echo ready; sleep 60")
	a := onTerminal(t, root, 30, 100, nil, "attach", "sz")
	a.WaitOutput(t, "ready")
	b := onTerminal(t, root, 40, 90, nil, "attach", "sz")
	b.WaitOutput(t, "ready")
	testutil.WaitFor(t, 5*time.Second, "size 30x90", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 30 && c == 90
	})
	// A read-only follower never constrains the size.
	f := onTerminal(t, root, 10, 20, nil, "peek", "-f", "sz")
	f.WaitOutput(t, "ready")
	st := status(t, root, "sz")
	if r, c := size(st); r != 30 || c != 90 {
		t.Errorf("with a 10x20 follower the size is %dx%d, want 30x90", r, c)
	}
	if cl := st.Clients; cl.Attached != 2 || cl.ReadOnly != 1 {
		t.Errorf("clients = %+v", cl)
	}
	// When the smaller writer leaves, the size grows to the other's.
	a.Write(t, "\x1c")
	a.WaitOutput(t, "[detached]")
	testutil.WaitFor(t, 5*time.Second, "size 40x90", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 40 && c == 90
	})
	// The user resizes their terminal: attach forwards it.
	b.Resize(t, 35, 85)
	testutil.WaitFor(t, 5*time.Second, "size 35x85 after SIGWINCH", func() bool {
		r, c := size(status(t, root, "sz"))
		return r == 35 && c == 85
	})
	f.Write(t, "\x1c")
	f.WaitOutput(t, "[detached]")
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
	// Ended, and past the grace period in which its daemon still
	// answers (and attach shows the end as it happens).
	testutil.WaitFor(t, 10*time.Second, "session to end", func() bool {
		s, err := layout.At(root).Load("dead")
		_, serr := os.Stat(layout.At(root).Paths("dead").Sock())
		return err == nil && s.Status == layout.Exited && os.IsNotExist(serr)
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
	// Its final lines come first, then the restarted session's.
	u.WaitOutput(t, "exited with code 2")
	testutil.WaitFor(t, 10*time.Second, "dead to run again", func() bool {
		m, err := layout.At(root).Metadata("dead")
		return err == nil && !m.Exited()
	})
	u.WaitOutput(t, "started-once")
	u.Write(t, "\r")
	u.WaitOutput(t, "[dead exited with code 2]")
	if code := u.Exit(t); code != 2 {
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
	u.WaitOutput(t, "line-two")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	u.Exit(t)
	scr := term.New(24, 80, term.Options{})
	scr.Write([]byte(u.Output()))
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
	u.WaitOutput(t, "ready")
	u.Cmd.Process.Signal(syscall.SIGQUIT)
	u.Write(t, "still-here\r")
	u.WaitOutput(t, "still-here\r\nstill-here")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	if code := u.Exit(t); code != 0 {
		t.Fatalf("exit code %d after SIGQUIT and detach", code)
	}
}

// A flood of output reaches the attached terminal as redraws, not byte
// for byte, and ends with the session's exact screen; the live stream
// then resumes.
func TestFloodIsRedrawnNotForwarded(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "fl", "--rows", "10", "--cols", "40", "--",
		"sh", "-c", "echo ready; read x; seq 1 400000; echo END-OF-FLOOD; cat")
	u := onTerminal(t, root, 10, 40, nil, "attach", "fl")
	u.WaitOutput(t, "ready")
	u.Write(t, "\r")
	testutil.WaitFor(t, 20*time.Second, "the end of the flood on the terminal", func() bool {
		l := u.Lines()
		return len(l) > 0 && l[len(l)-1] == "END-OF-FLOOD"
	})
	peek := testutil.PlainLines(testutil.MustRun(t, root, "peek", "--plain", "fl").Stdout)
	u.WaitLines(t, peek, "after the flood")
	const flood = 2_700_000 // bytes seq printed
	if n := len(u.Output()); n > flood/2 {
		t.Errorf("the terminal received %d bytes for a %d-byte flood: forwarded, not redrawn", n, flood)
	}
	// Typing right after a flood may still be redrawn (the flood ends
	// with a quiet window); soon it comes through as DATA again.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; ; i++ {
		m := "typed" + strconv.Itoa(i)
		u.Write(t, m+"\r")
		testutil.WaitFor(t, 10*time.Second, m+" on the screen", func() bool {
			return strings.Contains(strings.Join(u.Lines(), "\n"), m+"\n"+m)
		})
		if strings.Contains(u.Output(), m+"\r\n"+m) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("typing after the flood never came through as live output")
		}
	}
}

// pty attach hands the terminal to the daemon (ATTACH_TTY), which reads
// the keys and writes the screen itself, and lets go of it at detach.
func TestDaemonTakesTheTerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the handover needs /proc to reopen the terminal")
	}
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "tk", "--", "sh", "-c", "echo ready; cat")
	u := onTerminal(t, root, 24, 80, nil, "attach", "tk")
	u.WaitOutput(t, "ready")
	holds := func() bool { return holdsTTY(t, root, "tk", u.TTYName()) }
	testutil.WaitFor(t, 5*time.Second, "the daemon to hold "+u.TTYName(), holds)
	u.Write(t, "typed\r")
	u.WaitOutput(t, "typed\r\ntyped")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	if code := u.Exit(t); code != 0 {
		t.Fatalf("detach exit code %d", code)
	}
	testutil.WaitFor(t, 5*time.Second, "the daemon to let go of the terminal", func() bool { return !holds() })

	// A client killed outright closes its connection, and with it the
	// daemon's hold on the terminal.
	u = onTerminal(t, root, 24, 80, nil, "attach", "tk")
	testutil.WaitFor(t, 5*time.Second, "the daemon to hold "+u.TTYName()+" again", holds)
	u.Cmd.Process.Kill()
	testutil.WaitFor(t, 5*time.Second, "the daemon to let go of a killed client's terminal", func() bool { return !holds() })
}

// TestAttachRestartIsARelaunch: attach -r starts an ended session again the
// way pty restart does: gc's flapping flag and counters cleared, strategy
// kept, the agent's variables scrubbed.
func TestAttachRestartIsARelaunch(t *testing.T) {
	root := testutil.Root(t)
	e := relaunchtest.Start(t, root, "flap", true)
	u := onTerminal(t, root, 24, 80, []string{relaunchtest.AgentEnv}, "attach", "-r", "flap")
	e.CheckRelaunched(t, root, false)
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	u.Exit(t)
}

// Detaching leaves the user's terminal as a shell expects it, whatever
// the program had turned on: text typed afterwards is plain ASCII (not
// DEC line drawing through G0 or G1), wraps at the margin, overwrites
// rather than inserts, is placed from the top of the screen, and the
// cursor has its default shape.
func TestDetachLeavesTheTerminalSane(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "m", "--", "sh", "-c",
		`printf 'ready\033(0\033)0\016\033[?7l\033[4h\033[5 q\033[3;10r\033[?6h'; exec cat`)
	u := onTerminal(t, root, 24, 80, nil, "attach", "m")
	u.WaitOutput(t, "ready")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	u.Exit(t)
	scr := term.New(24, 80, term.Options{})
	scr.Write([]byte(u.Output()))
	// What a shell prints next: a long line, then a line drawn over the
	// start of a line already there.
	scr.Write([]byte("after:qq" + strings.Repeat("w", 100) + "\r\nxyz\rab"))
	text := scr.PlainText(false)
	if !strings.Contains(text, "after:qq"+strings.Repeat("w", 72)+"\n"+strings.Repeat("w", 28)+"\nabz") {
		t.Errorf("after detach, text lands as\n%s", text)
	}
	if m := scr.Modes(); m.Autowrap != true || m.Insert || m.Origin || m.CursorShape != 0 {
		t.Errorf("after detach the terminal keeps modes %+v", m)
	}
}

// A signal that would end the client (kill, a closing window manager)
// ends the attach the way tmux's client does: the terminal back in cooked
// mode and out of the session's modes, [terminated], the exit status of
// the signal, and the session still running.
func TestAttachEndedBySignalRestoresTheTerminal(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sig", "--", "sh", "-c",
		`printf 'ready\033(0\033[?7l\033[?1049h\033[?1000h'; exec cat`)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		u := onTerminal(t, root, 24, 80, nil, "attach", "sig")
		u.WaitOutput(t, "ready")
		if err := u.Cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		u.WaitOutput(t, "[terminated]")
		if code := u.Exit(t); code != 128+int(sig) {
			t.Errorf("%v: exit status %d, want %d", sig, code, 128+int(sig))
		}
		testutil.AssertCookedTerminal(t, u)
		scr := term.New(24, 80, term.Options{})
		scr.Write([]byte(u.Output()))
		scr.Write([]byte("after:qq"))
		if m := scr.Modes(); m.AltScreen || m.Mouse1000 || !m.Autowrap || !strings.Contains(scr.PlainText(false), "after:qq") {
			t.Errorf("%v: after the attach the terminal keeps modes %+v and shows\n%s", sig, m, scr.PlainText(false))
		}
	}
	// The session goes on: its daemon answers.
	status(t, root, "sig")
}

// TestAttachWithoutTerminal: attach and run (without -d) need a terminal,
// as tmux's attach does; without one they say so in one line and what to
// use instead, rather than streaming the screen into a pipe for ever.
func TestAttachWithoutTerminal(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sh1", "--", "sleep", "1000")
	for _, in := range []string{"devnull", "pipe"} {
		cmd := testutil.Command(t, root, "", "attach", "sh1")
		if in == "pipe" {
			cmd.Stdin = strings.NewReader("echo typed\n")
		}
		r := testutil.RunCmd(t, cmd)
		if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "needs a terminal") ||
			!strings.Contains(r.Stderr, `pty peek sh1`) || !strings.Contains(r.Stderr, `pty send sh1`) || r.Stdout != "" {
			t.Errorf("attach with stdin from %s: %+v; want exit 1 and one line naming peek and send", in, r)
		}
	}
	// -r would restart an ended session only to find it cannot show it.
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--tag", "keep=true", "--", "sh", "-c", "exit 2")
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		s, err := layout.At(root).Load("gone")
		_, serr := os.Stat(layout.At(root).Paths("gone").Sock())
		return err == nil && s.Status == layout.Exited && os.IsNotExist(serr)
	})
	r := testutil.RunCmd(t, testutil.Command(t, root, "", "attach", "-r", "gone"))
	if m, _ := layout.At(root).Metadata("gone"); r.Code != 1 || !strings.Contains(r.Stderr, "needs a terminal") || m == nil || !m.Exited() {
		t.Errorf("attach -r without a terminal: %+v (record %+v); want a refusal and the session left as it ended", r, m)
	}

	before := testutil.DirNames(t, root)
	r = testutil.Run(t, root, "run", "--", "sh", "-c", "echo should-not-run")
	if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "add -d") {
		t.Errorf("run without -d and without a terminal: %+v; want exit 1 and one line suggesting -d", r)
	}
	if after := testutil.DirNames(t, root); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("run without a terminal left files: before %v, after %v", before, after)
	}
}

// TestAttachRInGraceRestarts: attach -r on a session that has just exited,
// while its daemon still answers for its grace period (held there with
// SIGSTOP), reads it as exited, as list does: it shows how it ended and
// starts it again, clearing gc's flapping flag, instead of attaching to the
// lingering daemon and leaving the session flapping.
func TestAttachRInGraceRestarts(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "fl", "--tag", "strategy=permanent",
		"--tag", layout.TagStatus+"="+layout.StatusFlapping, "--", "sh", "-c", "echo boom-$PTY_SESSION_GENERATION; read x; exit 3")
	before, err := layout.At(root).Metadata("fl")
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "fl to print boom", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "fl").Stdout, "boom-")
	})
	if err := client.Send(root, "fl", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	release := testutil.HoldGrace(t, root, "fl")
	u := onTerminal(t, root, 24, 80, nil, "attach", "-r", "fl")
	u.WaitOutput(t, `Session "fl" exited with code 3`)
	release()
	u.WaitOutput(t, "boom-"+before.Generation)
	var m *layout.Metadata
	testutil.WaitFor(t, 15*time.Second, "fl to run again", func() bool {
		m, err = layout.At(root).Metadata("fl")
		return err == nil && !m.Exited() && m.Generation != before.Generation &&
			strings.Contains(u.Output(), "boom-"+m.Generation)
	})
	if m.Tags[layout.TagStatus] != "" || m.Tags["strategy"] != "permanent" {
		t.Errorf("restarted tags: %v", m.Tags)
	}
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	u.Exit(t)
}
