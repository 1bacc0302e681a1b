package peek

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

func run(t *testing.T, root string, env []string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(cmd.Env, env...)
	return testutil.RunCmd(t, cmd)
}

func TestPeekWait(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "w", "--", "sh", "-c", "echo first; read x; echo second-thing; sleep 60")
	done := make(chan testutil.Result, 1)
	go func() {
		done <- run(t, root, nil, "peek", "--plain", "--wait", "nothing-like-it", "--wait", "second-thing", "-t", "20", "w")
	}()
	// The waiter must be connected before the text appears for this to
	// test the live path; either way it must see it.
	testutil.WaitFor(t, 5*time.Second, "the waiter to connect", func() bool {
		return readOnly(root, "w") == 1
	})
	if err := client.Send(root, "w", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.Code != 0 || !strings.Contains(r.Stdout, "second-thing") || !strings.Contains(r.Stdout, "first") {
		t.Fatalf("wait: %+v", r)
	}
	r = run(t, root, nil, "peek", "--wait", "never", "-t", "0.3", "w")
	if r.Code != 1 || r.Stderr != "Timed out after 0.3s waiting for \"never\".\n" {
		t.Fatalf("timeout: %+v", r)
	}
}

func TestPeekWaitSessionEndsWithoutMatch(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "e", "--", "sh", "-c", "echo last words; read x; exit 4")
	go func() {
		testutil.WaitFor(t, 5*time.Second, "the waiter", func() bool {
			return readOnly(root, "e") == 1
		})
		client.Send(root, "e", []byte("\r"))
	}()
	r := run(t, root, []string{"PTY_REAP_ON_EXIT=false"}, "peek", "--wait", "never", "-t", "20", "e")
	if r.Code != 1 || !strings.Contains(r.Stderr, "exited (code 4) without matching \"never\"") || !strings.Contains(r.Stderr, "last words") {
		t.Fatalf("%+v", r)
	}
}

func TestPeekFullAndDead(t *testing.T) {
	root := testutil.Root(t)
	keep := []string{"PTY_REAP_ON_EXIT=false"}
	run(t, root, keep, "run", "-d", "--id", "f", "--rows", "5", "--", "sh", "-c", "seq 1 50; sleep 60")
	testutil.WaitFor(t, 10*time.Second, "output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "f").Stdout, "50")
	})
	view := testutil.MustRun(t, root, "peek", "--plain", "f").Stdout
	full := testutil.MustRun(t, root, "peek", "--plain", "--full", "f").Stdout
	if strings.Contains(view, "\n10\n") || !strings.Contains(full, "\n10\n") || !strings.HasPrefix(full, "1\n2\n") {
		t.Errorf("viewport %q / full %q", view, full)
	}
	run(t, root, keep, "run", "-d", "--id", "quiet", "--", "true")
	testutil.WaitFor(t, 10*time.Second, "quiet to end", func() bool {
		s, err := layout.At(root).Load("quiet")
		return err == nil && s.Status == layout.Exited
	})
	r := testutil.MustRun(t, root, "peek", "quiet")
	if r.Stdout != "Session \"quiet\" has exited with no saved output\n" {
		t.Errorf("dead, no output: %q", r.Stdout)
	}
}

func TestPeekFollowEndsWithExitCode(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "fo", "--", "sh", "-c", "echo begin; read x; echo later-line; exit 6")
	u := testutil.StartTerminal(t, testutil.Command(t, root, "", "peek", "-f", "fo"), 24, 80)
	testutil.WaitFor(t, 5*time.Second, "the follower", func() bool {
		return readOnly(root, "fo") == 1
	})
	client.Send(root, "fo", []byte("\r"))
	code := u.Exit(t)
	u.WaitOutput(t, "[fo exited with code 6]")
	if code != 6 || !strings.Contains(u.Output(), "later-line") {
		t.Fatalf("code %d output %q", code, u.Output())
	}
}

// -f replays the terminal's output as is, so asking for it plain is a
// mistake to report, not a flag to ignore.
func TestPeekFollowPlainRefused(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "fp", "--", "sleep", "30")
	r := testutil.Run(t, root, "peek", "-f", "--plain", "fp")
	if r.Code != 1 || !strings.Contains(r.Stderr, "-f and --plain cannot be combined") || r.Stdout != "" {
		t.Errorf("code %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

// pty-peek goes straight to the socket of an exact id and resolves any
// other reference through the registry. Both must print the same screen.
func TestPeekQuickAndResolvedAgree(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "qa", "--name", "label", "--rows", "6", "--cols", "30", "--",
		"sh", "-c", `seq 1 12; printf '\033[31mred\033[0m plain'; sleep 60`)
	testutil.WaitFor(t, 10*time.Second, "output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "qa").Stdout, "red plain")
	})
	for _, flags := range [][]string{nil, {"--plain"}, {"--full"}, {"--plain", "--full"}} {
		byID := testutil.MustRun(t, root, append(append([]string{"peek"}, flags...), "qa")...).Stdout
		byName := testutil.MustRun(t, root, append(append([]string{"peek"}, flags...), "label")...).Stdout
		if byID != byName || !strings.Contains(byID, "red") {
			t.Errorf("peek %v: by id %q, by name %q", flags, byID, byName)
		}
	}
	if r := testutil.Run(t, root, "peek", "--plain", "nosuch"); r.Code != 1 || !strings.Contains(r.Stderr, "nosuch") {
		t.Errorf("unknown session: %+v", r)
	}
}

// -t limits --wait; alone it would be silently ignored, so it is refused.
func TestPeekTimeoutNeedsWait(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "pt", "--", "sleep", "30")
	r := testutil.Run(t, root, "peek", "-t", "5", "pt")
	if r.Code != 1 || r.Stderr != "pty: -t only limits --wait TEXT: add --wait, or drop -t\n" || r.Stdout != "" {
		t.Errorf("code %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

// TestPeekUnreachableDaemon: a running session whose socket refuses us (a
// stale socket file) or hangs up without answering (a daemon of another
// user drops such connections) is an error saying so, exit 1, through
// the dispatcher's fast path and pty-peek alike, for every kind of peek.
func TestPeekUnreachableDaemon(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "U", "--", "sleep", "60")
	sock := layout.At(root).Paths("U").Sock()

	check := func(what, want string) {
		t.Helper()
		for _, args := range [][]string{{"peek", "U"}, {"peek", "--plain", "U"}, {"peek", "--wait", "x", "-t", "5", "U"}} {
			for _, sub := range []string{"", "peek"} {
				var r testutil.Result
				if sub == "" {
					r = testutil.Run(t, root, args...)
				} else {
					r = testutil.RunCmd(t, testutil.Command(t, root, sub, args[1:]...))
				}
				lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
				if r.Code != 1 || len(lines) != 1 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, "pty kill U") || r.Stdout != "" {
					t.Errorf("%s: pty-%s %v: exit %d, stdout %q, stderr %q; want exit 1 and one line saying %q", what, sub, args, r.Code, r.Stdout, r.Stderr, want)
				}
			}
		}
	}

	// Another daemon's socket in place of the session's: it hangs up.
	ln := hangUpOn(t, sock)
	check("hang-up", "closed the connection without answering")
	// A stale socket file: nothing listens. The daemon is stopped first:
	// running, it would bind its socket again at that path once it next
	// looked at its files (republish), as it should.
	pid := layout.At(root).Pid("U")
	if pid <= 0 {
		t.Fatal("no daemon pid for U")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	check("stale socket", "refuses connections")
}

// TestPeekStoppedDaemon: a stopped daemon takes connections (the kernel
// queues them) and never answers. "pty peek ID" through the dispatcher
// says so in one line once its answer time (10 s) is up, instead of
// asking again and again (about 30 s).
func TestPeekStoppedDaemon(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "stopped", "--", "sleep", "60")
	// run -d returns before the daemon serves: stopped before then, it
	// is not the daemon under test that answers (or not).
	testutil.MustRun(t, root, "peek", "stopped")
	s, err := layout.At(root).Load("stopped")
	if err != nil || s.Pid <= 0 {
		t.Fatalf("no daemon pid: %+v %v", s, err)
	}
	if err := syscall.Kill(s.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(s.Pid, syscall.SIGCONT)
	start := time.Now()
	r := testutil.Run(t, root, "peek", "stopped")
	took := time.Since(start)
	lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
	if r.Code != 1 || len(lines) != 1 || !strings.Contains(r.Stderr, "did not answer in time") || r.Stdout != "" {
		t.Errorf("exit %d stdout %q stderr %q; want exit 1 and one line saying the daemon did not answer", r.Code, r.Stdout, r.Stderr)
	}
	if took > 15*time.Second {
		t.Errorf("peek of a stopped daemon took %v; its answer time is 10s", took)
	}
}

// TestPeekDaemonDiedWhileConnecting: a connection can be queued on the
// socket of a daemon that is dying (its process still holds the socket
// for a moment) and then dropped. The session has ended, and peek prints
// what it left rather than calling it running and unreachable.
func TestPeekDaemonDiedWhileConnecting(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "D", "--", "sh", "-c", "echo left-behind; exec sleep 60")
	testutil.WaitFor(t, 10*time.Second, "the output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "D").Stdout, "left-behind")
	})
	s, err := layout.At(root).Load("D")
	if err != nil || s.Pid <= 0 {
		t.Fatalf("no daemon pid: %+v %v", s, err)
	}
	syscall.Kill(s.Pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "the session to show as vanished", func() bool {
		s, err := layout.At(root).Load("D")
		return err == nil && s.Status == layout.Vanished
	})
	// The dying daemon's socket, standing in: it takes the connection
	// and drops it.
	defer hangUpOn(t, layout.At(root).Paths("D").Sock()).Close()
	r := testutil.Run(t, root, "peek", "D")
	if r.Code != 0 || r.Stderr != "" || !strings.Contains(r.Stdout, "vanished") {
		t.Errorf("peek of a session whose daemon died: %+v; want what it left, saying it vanished", r)
	}
}

// hangUpOn puts a listener in place of the socket at sock that takes each
// connection and closes it at once.
func hangUpOn(t *testing.T, sock string) net.Listener {
	t.Helper()
	return serveOn(t, sock, func(c net.Conn) { c.Close() })
}

// serveOn puts a listener in place of the socket at sock and hands each
// connection it takes to handle, on the goroutine that accepts.
func serveOn(t *testing.T, sock string, handle func(net.Conn)) net.Listener {
	t.Helper()
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			handle(c)
		}
	}()
	return ln
}

// A session socket replaced by a symbolic link to another session's is
// not followed: peek and send refuse it instead of showing or typing into
// the other session.
func TestSymlinkedSocketIsNotFollowed(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "a", "--", "sh", "-c", "echo screen-of-a; sleep 60")
	testutil.MustRun(t, root, "run", "-d", "--id", "b", "--", "sh", "-c", "echo screen-of-b; cat")
	testutil.WaitFor(t, 10*time.Second, "both screens", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "a").Stdout, "screen-of-a") &&
			strings.Contains(testutil.Run(t, root, "peek", "--plain", "b").Stdout, "screen-of-b")
	})
	a := layout.At(root).Paths("a").Sock()
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(layout.At(root).Paths("b").Sock(), a); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run(t, root, "peek", "--plain", "a")
	if r.Code != 1 || strings.Contains(r.Stdout, "screen-of-b") || !strings.Contains(r.Stderr, "symbolic link") {
		t.Fatalf("peek through a linked socket: %+v", r)
	}
	r = testutil.Run(t, root, "send", "a", "typed-into-b\r")
	if r.Code != 1 || !strings.Contains(r.Stderr, "symbolic link") {
		t.Fatalf("send through a linked socket: %+v", r)
	}
	r = testutil.Run(t, root, "stats", "a")
	if r.Code != 1 || !strings.Contains(r.Stderr, "symbolic link") {
		t.Fatalf("stats through a linked socket: %+v", r)
	}
	if out := testutil.MustRun(t, root, "peek", "--plain", "b").Stdout; strings.Contains(out, "typed-into-b") {
		t.Fatalf("send reached b through a's link:\n%s", out)
	}
}

// Another user who may list the root's directory but not read its files
// is told permission denied, whose registry it is, and exit 1: not that a
// running session has vanished.
func TestAnotherUserIsDeniedNotToldVanished(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.MissingTool(t, "root (to run pty as another user)")
	}
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "mine", "--", "sh", "-c", "echo secret-screen; sleep 60")
	testutil.WaitFor(t, 10*time.Second, "the screen", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "mine").Stdout, "secret-screen")
	})
	// The directory readable by others, its files (0600) not.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(testutil.BinDir(t), 0o755); err != nil {
		t.Fatal(err)
	}
	asNobody := func(args ...string) testutil.Result {
		cmd := testutil.Command(t, root, "", args...)
		cmd.Dir = "/"
		cmd.Env = append(cmd.Env, "HOME=/nonexistent")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return testutil.RunCmd(t, cmd)
	}
	want := `cannot read session "mine" in ` + root + ` (owned by root): permission denied; run pty as that user`
	for _, args := range [][]string{{"peek", "mine"}, {"peek", "--plain", "mine"}, {"stats", "mine"}, {"send", "mine", "x"}} {
		r := asNobody(args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stdout+r.Stderr, "vanished") ||
			strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("%v as another user: %+v, want exit 1 and one line saying %q", args, r, want)
		}
	}
}

// The same when the record itself is readable by others (a user's umask
// or chmod): the pid file and socket are still the owner's alone, so the
// daemon's liveness cannot be told, and peek, stats, send and attach say
// permission denied rather than that a running session vanished.
func TestAnotherUserWithTheRecordIsDeniedNotToldVanished(t *testing.T) {
	if os.Geteuid() != 0 {
		testutil.MissingTool(t, "root (to run pty as another user)")
	}
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "mine", "--", "sleep", "60")
	testutil.WaitFor(t, 10*time.Second, "the daemon", func() bool {
		_, err := os.Stat(filepath.Join(root, "mine.pid"))
		return err == nil
	})
	for _, p := range []string{root, testutil.BinDir(t)} {
		if err := os.Chmod(p, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "mine.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `cannot read session "mine" in ` + root + ` (owned by root): permission denied; run pty as that user`
	for _, args := range [][]string{{"peek", "mine"}, {"stats", "mine"}, {"send", "mine", "x"}, {"attach", "mine"}} {
		cmd := testutil.Command(t, root, "", args...)
		cmd.Dir = "/"
		cmd.Env = append(cmd.Env, "HOME=/nonexistent")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		r := testutil.RunCmd(t, cmd)
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stdout+r.Stderr, "vanished") {
			t.Errorf("%v as another user: %+v, want exit 1 and %q", args, r, want)
		}
	}
}

// readOnly is how many read-only clients the session's daemon has, or -1
// when it does not answer.
func readOnly(root, id string) int {
	raw, err := client.Status(root, id, time.Second)
	if err != nil {
		return -1
	}
	st, err := proto.ParseStatus(raw)
	if err != nil {
		return -1
	}
	return st.Clients.ReadOnly
}

// TestPlainPeekSeesEachChange: a plain peek polled in a loop, as status
// bars do, shows every change of the screen in the next peek, and the
// same reply while nothing changed (a daemon that kept a reply between
// changes must drop it on each).
func TestPlainPeekSeesEachChange(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "c", "--rows", "10", "--cols", "40", "--", "sh", "-c", "echo one; read x; echo two; read y; echo three; exec sleep 60")
	plain := func() string {
		r := testutil.Run(t, root, "peek", "--plain", "c")
		if r.Code != 0 {
			t.Fatalf("peek: %+v", r)
		}
		return r.Stdout
	}
	last := ""
	for _, want := range []string{"one", "two", "three"} {
		if want != "one" {
			if err := client.Send(root, "c", []byte("\r")); err != nil {
				t.Fatal(err)
			}
		}
		testutil.WaitFor(t, 10*time.Second, want+" on the screen", func() bool {
			last = plain()
			return strings.Contains(last, want)
		})
		// Asked again of the same screen: the same reply.
		if again := plain(); again != last {
			t.Fatalf("after %q: %q, then %q", want, last, again)
		}
	}
	if last != "one\n\ntwo\n\nthree\n" {
		t.Errorf("last screen %q", last)
	}
}
