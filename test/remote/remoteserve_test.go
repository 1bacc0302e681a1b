package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// stdio is one running "pty-remote-serve --stdio".
type stdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func start(t *testing.T, root string, env ...string) *stdio {
	t.Helper()
	cmd := testutil.Command(t, root, "remote-serve", "--stdio")
	cmd.Env = append(cmd.Env, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return &stdio{cmd, in, bufio.NewReader(out)}
}

// line reads one response line, within a deadline.
func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	ch := make(chan string, 1)
	go func() { l, _ := r.ReadString('\n'); ch <- l }()
	select {
	case l := <-ch:
		return l
	case <-time.After(20 * time.Second):
		t.Fatal("no response line within 20 s")
		return ""
	}
}

// exchange sends one request (with no newline added) on a fresh
// --stdio server and returns everything it writes before exiting, and
// its exit status.
func exchange(t *testing.T, root, req string, env ...string) (string, int) {
	t.Helper()
	cmd := testutil.Command(t, root, "remote-serve", "--stdio")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(req)
	r := testutil.RunCmd(t, cmd)
	return r.Stdout, r.Code
}

type row struct {
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	Command     *string           `json:"command"`
	Cwd         *string           `json:"cwd"`
	Tags        map[string]string `json:"tags"`
	DisplayName *string           `json:"displayName"`
}

func TestList(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "live", "--name", "web", "--tag", "role=server", "--", "sleep", "100")
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--", "sleep", "100")
	testutil.MustRun(t, root, "kill", "gone")
	out, code := exchange(t, root, `{"op":"list"}`+"\n")
	if code != 0 {
		t.Fatalf("exit %d, output %q", code, out)
	}
	var resp struct{ Sessions []row }
	if err := json.Unmarshal([]byte(out), &resp); err != nil || !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("not one JSON line: %q (%v)", out, err)
	}
	got := map[string]row{}
	for _, r := range resp.Sessions {
		got[r.Name] = r
	}
	live, gone := got["live"], got["gone"]
	if len(got) != 2 || live.Status != "running" || gone.Status != "exited" {
		t.Fatalf("sessions: %s", out)
	}
	if live.Command == nil || *live.Command != "sleep 100" || live.Cwd == nil || *live.Cwd == "" ||
		live.Tags["role"] != "server" || live.DisplayName == nil || *live.DisplayName != "web" {
		t.Fatalf("live row: %s", out)
	}
	// Fields the session does not have are left out, as the original
	// leaves them out.
	if gone.Tags != nil || strings.Contains(out, `"tags":{}`) {
		t.Fatalf("gone row: %s", out)
	}
}

// route opens a route to ref, writing first (in the same write as the
// request line, as a client may) the frames in first.
func route(t *testing.T, root, ref string, first []byte) (*stdio, *proto.Reader) {
	t.Helper()
	s := start(t, root)
	if _, err := s.in.Write(append([]byte(`{"op":"route","name":"`+ref+`"}`+"\n"), first...)); err != nil {
		t.Fatal(err)
	}
	if l := readLine(t, s.out); l != "{\"ok\":true}\n" {
		t.Fatalf("route ack: %q", l)
	}
	return s, proto.NewReader(s.out)
}

func screen(t *testing.T, r *proto.Reader) string {
	t.Helper()
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("read screen: %v", err)
		}
		if f.Type == proto.Screen {
			return string(f.Payload)
		}
	}
}

func peekPlain(t *testing.T, root, ref string) string {
	t.Helper()
	s, r := route(t, root, ref, proto.AppendFrame(nil, proto.Peek, proto.PeekRequest(proto.PeekPlain)))
	sc := screen(t, r)
	// The client's end of input is passed on; the daemon then ends the
	// connection and the server exits.
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("remote-serve after the client closed: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("remote-serve still running 20 s after the client closed its input")
	}
	return sc
}

func TestRoute(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sh1", "--name", "shell", "--", "sh", "-c", "echo ready; read x; echo got-$x; sleep 100")
	testutil.WaitFor(t, 10*time.Second, "the session to print ready", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "sh1").Stdout, "ready")
	})
	if sc := peekPlain(t, root, "shell"); !strings.Contains(sc, "ready") || strings.Contains(sc, "got-") {
		t.Fatalf("screen through the route: %q", sc)
	}
	// Type through a route (ATTACH, then DATA), and see the screen change
	// through another.
	s, r := route(t, root, "sh1", proto.AppendFrame(nil, proto.Attach, proto.Size(24, 80)))
	screen(t, r)
	if err := proto.WriteFrame(s.in, proto.Data, []byte("zz\r")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the typed line on the screen", func() bool {
		return strings.Contains(peekPlain(t, root, "sh1"), "got-zz")
	})
	if err := proto.WriteFrame(s.in, proto.Detach, nil); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := r.Next(); err != nil {
			break // the daemon closed the connection on DETACH
		}
	}
}

func TestErrors(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "dead", "--", "sleep", "100")
	testutil.MustRun(t, root, "kill", "dead")
	for _, c := range []struct{ req, want string }{
		{`{"op":"route","name":"nope"}` + "\n", `{"error":"session \"nope\" not found"}`},
		// A session whose daemon is gone: its socket does not answer.
		{`{"op":"route","name":"dead"}` + "\n", `{"error":"session \"dead\" not found"}`},
		{"not json\n", `{"error":"malformed request"}`},
		{"[1]\n", `{"error":"malformed request"}`},
		{`{"op":"frob"}` + "\n", `{"error":"unknown op: frob"}`},
		{`{}` + "\n", `{"error":"unknown op: undefined"}`},
		{`{"op":"route"}` + "\n", `{"error":"unknown op: route"}`},
		{`{"op":"route","name":7}` + "\n", `{"error":"unknown op: route"}`},
		{`{"op":"list"`, ""}, // the client left without a whole line
		{strings.Repeat("x", 5000), `{"error":"request line longer than 4096 bytes"}`},
	} {
		out, code := exchange(t, root, c.req)
		want := c.want
		if want != "" {
			want += "\n"
		}
		if out != want || code != 0 {
			t.Errorf("%.40q: got %q exit %d, want %q exit 0", c.req, out, code, want)
		}
	}
	// 4096 bytes with the newline is still a request.
	pad := strings.Repeat(" ", 4096-len(`{"op":"frob"}`)-1)
	if out, _ := exchange(t, root, `{"op":"frob"}`+pad+"\n"); out != `{"error":"unknown op: frob"}`+"\n" {
		t.Errorf("a request of exactly the bound: %q", out)
	}
}

func TestRequestTimeout(t *testing.T) {
	root := testutil.Root(t)
	s := start(t, root, "PTY_REMOTE_SERVE_REQUEST_WAIT=300ms")
	s.in.Write([]byte(`{"op":`)) // and nothing more
	if l := readLine(t, s.out); l != `{"error":"no request line within 300ms"}`+"\n" {
		t.Fatalf("timeout: %q", l)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// serveSocket runs "pty-remote-serve --socket path" for the test.
func serveSocket(t *testing.T, root, path string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := testutil.Command(t, root, "remote-serve", "--socket", path)
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// dialSocket connects to the server at path once it listens.
func dialSocket(t *testing.T, path string) net.Conn {
	t.Helper()
	var c net.Conn
	testutil.WaitFor(t, 10*time.Second, "the socket to answer", func() bool {
		var err error
		c, err = net.Dial("unix", path)
		return err == nil
	})
	return c
}

func TestSocket(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "s1", "--", "sh", "-c", "echo sock-ready; sleep 100")
	// run -d returns before the command has printed.
	testutil.WaitFor(t, 10*time.Second, "the session to print sock-ready", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "s1").Stdout, "sock-ready")
	})
	dir := t.TempDir()
	path := filepath.Join(dir, "remote.sock")

	// A file that is not a socket is refused, not replaced.
	os.WriteFile(path, []byte("keep"), 0o600)
	r := testutil.RunCmd(t, testutil.Command(t, root, "remote-serve", "--socket", path))
	if b, _ := os.ReadFile(path); r.Code != 1 || !strings.Contains(r.Stderr, "is not a socket") || string(b) != "keep" {
		t.Fatalf("over a file: %+v, file %q", r, b)
	}
	os.Remove(path)
	// Inside the registry is refused.
	if r := testutil.RunCmd(t, testutil.Command(t, root, "remote-serve", "--socket", filepath.Join(root, "x.sock"))); r.Code != 1 || !strings.Contains(r.Stderr, "inside the registry") {
		t.Fatalf("inside the root: %+v", r)
	}

	serveSocket(t, root, path)
	c := dialSocket(t, path)
	st, err := os.Lstat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", st.Mode(), err)
	}
	c.Write([]byte(`{"op":"list"}` + "\n"))
	b, _ := io.ReadAll(c)
	c.Close()
	if !bytes.HasPrefix(b, []byte(`{"sessions":[{"name":"s1","status":"running"`)) {
		t.Fatalf("list over the socket: %q", b)
	}
	// Route, then the session protocol; the client half-closes after its
	// request and still reads the whole answer.
	c, err = net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(append([]byte(`{"op":"route","name":"s1"}`+"\n"), proto.AppendFrame(nil, proto.Peek, proto.PeekRequest(proto.PeekPlain))...))
	c.(*net.UnixConn).CloseWrite()
	br := bufio.NewReader(c)
	if l := readLine(t, br); l != "{\"ok\":true}\n" {
		t.Fatalf("ack: %q", l)
	}
	if sc := screen(t, proto.NewReader(br)); !strings.Contains(sc, "sock-ready") {
		t.Fatalf("screen: %q", sc)
	}
	// A second server on a live socket is refused.
	if r := testutil.RunCmd(t, testutil.Command(t, root, "remote-serve", "--socket", path)); r.Code != 1 || !strings.Contains(r.Stderr, "already being served") {
		t.Fatalf("second server: %+v", r)
	}
}

func TestSocketBounds(t *testing.T) {
	root := testutil.Root(t)
	path := filepath.Join(t.TempDir(), "r.sock")
	serveSocket(t, root, path, "PTY_REMOTE_SERVE_REQUEST_WAIT=30s")
	dial := func() net.Conn { return dialSocket(t, path) }
	// 64 connections that say nothing hold every slot; the next one is
	// turned away with a line.
	var idle []net.Conn
	for range 64 {
		idle = append(idle, dial())
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	extra := dial()
	extra.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, _ := io.ReadAll(extra)
	extra.Close()
	if !strings.HasPrefix(string(b), `{"error":"too many connections (at most 64)`) {
		t.Fatalf("connection 65: %q", b)
	}
	// A slot freed is served again.
	idle[0].Close()
	testutil.WaitFor(t, 10*time.Second, "a freed slot to be served", func() bool {
		c := dial()
		defer c.Close()
		c.Write([]byte(`{"op":"list"}` + "\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, _ := io.ReadAll(c)
		return strings.HasPrefix(string(b), `{"sessions":[],"now":"`) && strings.HasSuffix(string(b), "}\n")
	})
}

func TestSocketRequestTimeout(t *testing.T) {
	root := testutil.Root(t)
	path := filepath.Join(t.TempDir(), "r.sock")
	serveSocket(t, root, path, "PTY_REMOTE_SERVE_REQUEST_WAIT=200ms")
	c := dialSocket(t, path)
	defer c.Close()
	c.Write([]byte(`{"op":"li`))
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c)
	if string(b) != `{"error":"no request line within 200ms"}`+"\n" || err != nil {
		t.Fatalf("timeout over the socket: %q %v", b, err)
	}
}

// TestSocketStop stops a --socket server that is serving a route: it
// ends the route, removes its socket and exits 0.
func TestSocketStop(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "st", "--", "sleep", "100")
	path := filepath.Join(t.TempDir(), "r.sock")
	cmd := serveSocket(t, root, path)
	c := dialSocket(t, path)
	defer c.Close()
	c.Write(append([]byte(`{"op":"route","name":"st"}`+"\n"), proto.AppendFrame(nil, proto.Attach, proto.Size(24, 80))...))
	br := bufio.NewReader(c)
	if l := readLine(t, br); l != "{\"ok\":true}\n" {
		t.Fatalf("ack: %q", l)
	}
	fr := proto.NewReader(br)
	screen(t, fr)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stopped server: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server still runs 20 s after SIGTERM")
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		if _, err := fr.Next(); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the route outlived its server")
			}
			break
		}
	}
}
