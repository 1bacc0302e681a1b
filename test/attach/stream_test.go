package attach

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// consumer reads an attach stream the way an embedder does: frame by
// frame, as they come, until the descriptor's end.
type consumer struct {
	mu     sync.Mutex
	frames []proto.Frame
	err    error // how the stream ended: io.EOF at a frame boundary
	done   chan struct{}
}

func consume(r io.Reader) *consumer {
	c := &consumer{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		fr := proto.NewReader(r)
		for {
			f, err := fr.Next()
			c.mu.Lock()
			if err != nil {
				c.err = err
				c.mu.Unlock()
				return
			}
			c.frames = append(c.frames, f)
			c.mu.Unlock()
		}
	}()
	return c
}

func (c *consumer) snapshot() []proto.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]proto.Frame(nil), c.frames...)
}

func types(fs []proto.Frame) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Type.String())
	}
	return strings.Join(s, " ")
}

// data is what the DATA frames carried, in order.
func data(fs []proto.Frame) string {
	var b bytes.Buffer
	for _, f := range fs {
		if f.Type == proto.Data {
			b.Write(f.Payload)
		}
	}
	return b.String()
}

func (c *consumer) waitFor(t *testing.T, what string, cond func([]proto.Frame) bool) []proto.Frame {
	t.Helper()
	var fs []proto.Frame
	testutil.WaitForState(t, 15*time.Second, what, func() (bool, string) {
		fs = c.snapshot()
		return cond(fs), types(fs) + " data " + data(fs)
	})
	return fs
}

// end waits for the stream's end and returns all its frames.
func (c *consumer) end(t *testing.T) []proto.Frame {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		t.Fatalf("the stream did not end; frames so far: %s", types(c.snapshot()))
	}
	if c.err != io.EOF {
		t.Errorf("the stream ended with %v, want a clean end at a frame boundary", c.err)
	}
	return c.snapshot()
}

// checkStream checks the v1 contract on a whole stream: GEOMETRY, a
// SCREEN before any DATA or EXIT, and one final EXIT or DETACH, last.
func checkStream(t *testing.T, fs []proto.Frame, last proto.Type) {
	t.Helper()
	if len(fs) < 3 || fs[0].Type != proto.Geometry || fs[1].Type != proto.Screen {
		t.Fatalf("stream %s: want GEOMETRY, SCREEN first", types(fs))
	}
	for i, f := range fs {
		final := f.Type == proto.Exit || f.Type == proto.Detach
		if final != (i == len(fs)-1) {
			t.Fatalf("stream %s: want exactly one EXIT or DETACH, last", types(fs))
		}
		if f.Type != proto.Geometry && f.Type != proto.Screen && f.Type != proto.Data && !final {
			t.Fatalf("stream %s: frame %d is %v, not a stream frame", types(fs), i, f.Type)
		}
	}
	if got := fs[len(fs)-1]; got.Type != last {
		t.Fatalf("stream %s: ends with %v, want %v", types(fs), got.Type, last)
	}
}

// TestAttachStreamWhileTyping: a user types through the terminal (a tmux
// pane) while another process follows the session on the stream's
// descriptor. The consumer sees the geometry of the user's terminal, the
// screen, what the user's typing made the program print, and the final
// DETACH (the detach key) or EXIT (the program ended) with its code;
// nothing is drawn on the user's terminal.
func TestAttachStreamWhileTyping(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "typed", "--", "sh", "-c",
		`echo stream-ready; while read x; do echo "got-$x"; [ "$x" = quit ] && exit 7; done`)
	fifo := filepath.Join(t.TempDir(), "stream")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// pty attach's status, through the pane's shell: tmux can mark the
	// pane dead before it has reaped the command, and its status then
	// reads as 0.
	codeFile := filepath.Join(t.TempDir(), "code")
	exitCode := func() int {
		t.Helper()
		code := -1
		testutil.WaitFor(t, 15*time.Second, "pty attach to exit", func() bool {
			b, err := os.ReadFile(codeFile)
			if err != nil || !strings.HasSuffix(string(b), "\n") {
				return false
			}
			code, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
		return code
	}
	follow := func() (*consumer, *testutil.Tmux) {
		opened := make(chan *os.File, 1)
		go func() {
			f, err := os.Open(fifo) // waits for pty attach to open it
			if err != nil {
				t.Error(err)
			}
			opened <- f
		}()
		os.Remove(codeFile)
		tm := testutil.StartTmux(t, root, 30, 100, "pty attach --attach-stream-fd-v1 3 typed 3>"+fifo+"; echo $? >"+codeFile)
		var f *os.File
		select {
		case f = <-opened:
		case <-time.After(15 * time.Second):
			t.Fatal("pty attach did not open the stream")
		}
		t.Cleanup(func() { f.Close() })
		c := consume(f)
		c.waitFor(t, "GEOMETRY and the SCREEN", func(fs []proto.Frame) bool {
			return len(fs) >= 2 && fs[1].Type == proto.Screen && strings.Contains(string(fs[1].Payload), "stream-ready")
		})
		return c, tm
	}

	c, tm := follow()
	fs := c.snapshot()
	if rows, cols, _ := proto.ParseSize(fs[0].Payload); fs[0].Type != proto.Geometry || rows != 30 || cols != 100 {
		t.Fatalf("first frame %v %dx%d, want GEOMETRY 30x100 (the user's terminal)", fs[0].Type, rows, cols)
	}
	tm.Keys("hello-stream", "Enter")
	c.waitFor(t, "the program's answer as DATA", func(fs []proto.Frame) bool {
		return strings.Contains(data(fs), "got-hello-stream")
	})
	tm.Keys("C-\\")
	fs = c.end(t)
	checkStream(t, fs, proto.Detach)
	if p := fs[len(fs)-1].Payload; len(p) != 0 {
		t.Errorf("DETACH payload %q, want empty", p)
	}
	if code := exitCode(); code != 0 {
		t.Errorf("pty attach exited %d after the detach key, want 0", code)
	}
	tm.WaitExit()
	blank(t, tm)
	if s, err := layout.At(root).Load("typed"); err != nil || s.Status != layout.Running {
		t.Fatalf("after the detach: %v %v, want the session running", s.Status, err)
	}

	// Again, until the program ends: the last frame is its EXIT.
	c, tm = follow()
	tm.Keys("quit", "Enter")
	fs = c.end(t)
	checkStream(t, fs, proto.Exit)
	if !strings.Contains(data(fs), "got-quit") {
		t.Errorf("DATA %q, want the program's last words before EXIT", data(fs))
	}
	if code := proto.ParseExitCode(fs[len(fs)-1].Payload); code != 7 {
		t.Errorf("EXIT %d, want 7", code)
	}
	if code := exitCode(); code != 7 {
		t.Errorf("pty attach exited %d, want the session's 7", code)
	}
	tm.WaitExit()
	blank(t, tm)
}

// blank checks that nothing was drawn on the pane.
func blank(t *testing.T, tm *testutil.Tmux) {
	t.Helper()
	for _, l := range strings.Split(tm.Screen(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			t.Errorf("the user's terminal shows %q, want nothing drawn on it", l)
		}
	}
}

// TestAttachStreamBadDescriptor: a descriptor that is not one of the
// caller's, or not open for writing, is one line on stderr and exit 1,
// before the session is even looked up.
func TestAttachStreamBadDescriptor(t *testing.T) {
	root := testutil.Root(t)
	for _, tc := range []struct {
		args     []string
		want     string
		readOnly bool // fd 3 open for reading only
	}{
		{[]string{"1"}, "3 or more", false},
		{[]string{"0"}, "3 or more", false},
		{[]string{"-4"}, "3 or more", false},
		{[]string{"three"}, "want a descriptor number", false},
		{nil, "needs a value", false},
		{[]string{"9"}, "descriptor 9 is not open", false},
		{[]string{"3"}, "descriptor 3 is not writable", true},
	} {
		args := append([]string{"attach", "--attach-stream-fd-v1"}, tc.args...)
		if tc.args != nil {
			args = append(args, "nosuch")
		}
		cmd := testutil.Command(t, root, "", args...)
		if tc.readOnly {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			cmd.ExtraFiles = []*os.File{r}
		}
		res := testutil.RunCmd(t, cmd)
		lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
		if res.Code != 1 || res.Stdout != "" || len(lines) != 1 || !strings.Contains(res.Stderr, tc.want) || strings.Contains(res.Stderr, "not found") {
			t.Errorf("%v: exit %d stdout %q stderr %q; want exit 1 and one line saying %q", args, res.Code, res.Stdout, res.Stderr, tc.want)
		}
	}
	// An ended session is not restarted, and there is no prompt.
	testutil.MustRun(t, root, "run", "-d", "--id", "ended", "--", "sh", "-c", "exit 3")
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		s, err := layout.At(root).Load("ended")
		return err == nil && s.Status == layout.Exited && s.Pid <= 0
	})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := testutil.Command(t, root, "", "attach", "--attach-stream-fd-v1", "3", "ended")
	cmd.ExtraFiles = []*os.File{w}
	res := testutil.RunCmd(t, cmd)
	w.Close()
	if res.Code != 1 || res.Stdout != "" || !strings.Contains(res.Stderr, `Session "ended" is not running (status: exited)`) {
		t.Errorf("ended session: %+v; want exit 1 saying it is not running", res)
	}
	if b, _ := io.ReadAll(r); len(b) != 0 {
		t.Errorf("ended session: the stream got %q, want nothing", b)
	}
}

// peer stands a fake daemon, a peer speaking the protocol as the test
// writes it, in place of session id's socket (the session itself, a
// sleep, keeps its record and pid, so it is running). serve gets each
// connection after its first frame.
func peer(t *testing.T, root, id string, serve func(c net.Conn, first proto.Frame)) {
	t.Helper()
	sock := layout.At(root).Paths(id).Sock()
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(20 * time.Second))
				f, err := proto.NewReader(c).Next()
				if err != nil {
					return
				}
				serve(c, f)
			}()
		}
	}()
}

func frames(fs ...proto.Frame) []byte {
	var b []byte
	for _, f := range fs {
		b = proto.AppendFrame(b, f.Type, f.Payload)
	}
	return b
}

var (
	geometry = proto.Frame{Type: proto.Geometry, Payload: proto.Size(24, 80)}
	screen   = proto.Frame{Type: proto.Screen, Payload: []byte("peer-screen")}
)

// streamFrom runs pty attach --attach-stream-fd-v1 3 against a peer and
// returns its result and the stream.
func streamFrom(t *testing.T, root, id string) (testutil.Result, []byte) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := testutil.Command(t, root, "", "attach", "--attach-stream-fd-v1", "3", id)
	cmd.ExtraFiles = []*os.File{w}
	var got []byte
	done := make(chan struct{})
	go func() { got, _ = io.ReadAll(r); close(done) }()
	res := testutil.RunCmd(t, cmd)
	w.Close()
	<-done
	return res, got
}

// TestAttachStreamPeerOrder: against a daemon that does not give the
// geometry-first order, or ends without EXIT, pty attach says so on
// stderr and exits 1, having forwarded only what was in order; frames it
// does not know (the Rust port's 11, any other type) are skipped, and a
// refusal (12) is reported with its reason.
func TestAttachStreamPeerOrder(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "p", "--", "sleep", "120")
	var mu sync.Mutex
	var reply []byte
	var attach proto.Frame
	peer(t, root, "p", func(c net.Conn, first proto.Frame) {
		mu.Lock()
		b := reply
		attach = first
		mu.Unlock()
		c.Write(b)
	})
	for _, tc := range []struct {
		name   string
		reply  []byte
		code   int
		stream string // the frame types forwarded
		stderr string
	}{
		{"screen first", frames(screen), 1, "", "sent SCREEN before GEOMETRY"},
		{"data before screen", frames(geometry, proto.Frame{Type: proto.Data, Payload: []byte("early")}), 1, "GEOMETRY", "sent DATA before SCREEN"},
		{"exit before screen", frames(geometry, proto.Frame{Type: proto.Exit, Payload: proto.ExitCode(0)}), 1, "GEOMETRY", "sent EXIT before SCREEN"},
		{"no exit", frames(geometry, screen), 1, "GEOMETRY SCREEN", "cut before EXIT"},
		{"unknown frames skipped", frames(proto.Frame{Type: proto.Recovery, Payload: []byte{1, 2}}, geometry,
			proto.Frame{Type: 77, Payload: bytes.Repeat([]byte{'u'}, 1000)}, screen,
			proto.Frame{Type: proto.Data, Payload: []byte("live")}, proto.Frame{Type: proto.Recovery},
			proto.Frame{Type: proto.Exit, Payload: proto.ExitCode(3)}), 3, "GEOMETRY SCREEN DATA EXIT", ""},
		{"refused", frames(proto.Frame{Type: proto.AttachRefused, Payload: []byte("subscriber cap reached\x1b[2J")}), 1, "", "refused the connection: subscriber cap reached"},
	} {
		mu.Lock()
		reply = tc.reply
		mu.Unlock()
		res, got := streamFrom(t, root, "p")
		fs := consume(bytes.NewReader(got))
		<-fs.done
		if res.Code != tc.code || res.Stdout != "" || types(fs.frames) != tc.stream || fs.err != io.EOF {
			t.Errorf("%s: exit %d stdout %q stream %q (%v); want exit %d and %q", tc.name, res.Code, res.Stdout, types(fs.frames), fs.err, tc.code, tc.stream)
		}
		lines := strings.Split(strings.TrimRight(res.Stderr, "\n"), "\n")
		if tc.stderr == "" && res.Stderr != "" || tc.stderr != "" && (len(lines) != 1 || !strings.Contains(res.Stderr, tc.stderr)) || strings.Contains(res.Stderr, "\x1b") {
			t.Errorf("%s: stderr %q; want one line saying %q", tc.name, res.Stderr, tc.stderr)
		}
		mu.Lock()
		if attach.Type != proto.Attach {
			t.Errorf("%s: the client's first frame is %v, want ATTACH", tc.name, attach.Type)
		}
		mu.Unlock()
	}
}

// TestAttachStreamWriteFails: when the consumer goes away (the stream's
// pipe closes), pty attach says the descriptor failed and exits 1
// instead of following the session for nobody.
func TestAttachStreamWriteFails(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "w", "--", "sleep", "120")
	peer(t, root, "w", func(c net.Conn, _ proto.Frame) {
		c.Write(frames(geometry, screen))
		chunk := frames(proto.Frame{Type: proto.Data, Payload: bytes.Repeat([]byte{'x'}, 64<<10)})
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := testutil.Command(t, root, "", "attach", "--attach-stream-fd-v1", "3", "w")
	cmd.ExtraFiles = []*os.File{w}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	fr := proto.NewReader(r)
	for i := 0; i < 2; i++ {
		if _, err := fr.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pty attach went on after its stream's reader left")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "descriptor 3 failed") {
		t.Errorf("after the reader left: %v, stderr %q; want exit 1 saying descriptor 3 failed", err, errb.String())
	}
}

// TestAttachStreamSignalEndsWithDetach: pty attach killed (TERM) while
// streaming ends the stream with its empty DETACH, leaves the session
// running, and exits 128+15, as an attach does.
func TestAttachStreamSignalEndsWithDetach(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sig", "--", "sh", "-c", "echo sig-ready; exec sleep 120")
	// The baseline below is to show the line: the session must have it
	// before the attach asks (run -d returns once the command started).
	testutil.WaitFor(t, 10*time.Second, "sig-ready on the session's screen", func() bool {
		return strings.Contains(testutil.MustRun(t, root, "peek", "--plain", "sig").Stdout, "sig-ready")
	})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := testutil.Command(t, root, "", "attach", "--attach-stream-fd-v1", "3", "sig")
	cmd.ExtraFiles = []*os.File{w}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	c := consume(r)
	c.waitFor(t, "the baseline", func(fs []proto.Frame) bool {
		return len(fs) >= 2 && strings.Contains(string(fs[1].Payload), "sig-ready")
	})
	cmd.Process.Signal(syscall.SIGTERM)
	fs := c.end(t)
	checkStream(t, fs, proto.Detach)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+15 || errb.Len() != 0 {
		t.Errorf("after SIGTERM: %v, stderr %q; want exit 143 and nothing on stderr", err, errb.String())
	}
	if s, err := layout.At(root).Load("sig"); err != nil || s.Status != layout.Running {
		t.Errorf("after the client's end: %v %v, want the session running", s.Status, err)
	}
}
