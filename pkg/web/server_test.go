package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
	"github.com/ptyorg/pty/pkg/web"
)

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// loggedIn returns a client of the pages, after checking that the
// printed URL serves the list without setting any cookie: the token is
// presented on the live channels only (dialLive).
func loggedIn(t *testing.T, w *webServer) *http.Client {
	t.Helper()
	c := &http.Client{CheckRedirect: noRedirect}
	resp := get(t, c, w.url)
	if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 {
		t.Fatalf("the printed URL answered %d with cookies %v, want 200 and none", resp.StatusCode, resp.Cookies())
	}
	return c
}

// TestTokenRequired: the live channels, which carry the sessions, open
// only for a handshake offering the token; the pages, which hold no
// session data, are served to anyone, and nothing sets a cookie.
func TestTokenRequired(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "s", "sleep", "600")
	w := startWeb(t, root)
	if len(w.token) < 22 { // 128 bits in base64
		t.Errorf("token %q is shorter than 128 bits", w.token)
	}
	for _, offer := range [][]string{nil, {web.Subprotocol}, {web.Subprotocol, web.TokenProtocolPrefix + "wrong"},
		{web.Subprotocol, web.TokenProtocolPrefix}, {web.Subprotocol, w.token}, {web.Subprotocol, web.TokenProtocolPrefix + w.token + "x"}} {
		for _, p := range []string{"/live/list", "/live/s/" + id} {
			conn, resp, err := dialOffering(w, p, w.base, offer)
			if err == nil {
				conn.CloseNow()
				t.Errorf("%s offering %q: the live channel opened", p, offer)
			} else if resp == nil || resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s offering %q: %v, want 401", p, offer, err)
			}
		}
	}
	c := loggedIn(t, w)
	for _, p := range []string{"/", "/s/" + id, "/static/app.js", "/static/style.css"} {
		resp := get(t, c, w.base+p)
		if resp.StatusCode != http.StatusOK || len(resp.Cookies()) != 0 {
			t.Errorf("GET %s: %d, cookies %v", p, resp.StatusCode, resp.Cookies())
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: CSP %q", p, csp)
		}
	}
	// Only the pages and their files: nothing of the disk or the registry.
	for _, p := range []string{"/static/", "/static/../web.go", "/static/list.html", "/s/../" + id, "/" + id + ".json", "/s/", "/etc/passwd"} {
		if resp := get(t, c, w.base+p); resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMovedPermanently {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}
	conn, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	conn.CloseNow()
}

// TestHostChecked: a request naming this server by a DNS name (as a page
// of a name rebound to 127.0.0.1 would) is refused, token or not.
func TestHostChecked(t *testing.T) {
	root := testutil.Root(t)
	w := runInProcess(t, web.Options{Root: root})
	host := strings.TrimPrefix(w.base, "http://")
	_, port, _ := net.SplitHostPort(host)
	for _, h := range []string{"evil.example:" + port, "localhost.evil.example", "127.0.0.1.nip.io:" + port} {
		for _, p := range []string{"/", "/live/list"} {
			conn, err := net.Dial("tcp", host)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: %s, %s%s\r\n\r\n",
				p, h, web.Subprotocol, web.TokenProtocolPrefix, w.token)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			conn.Close()
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s with Host %s: %d, want 403", p, h, resp.StatusCode)
			}
		}
	}
	for _, h := range []string{"localhost:" + port, "[::1]:" + port, host} {
		req, _ := http.NewRequest("GET", w.base+"/", nil)
		req.Host = h
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Host %s: %d, want 200", h, resp.StatusCode)
		}
	}
}

// dialLive opens a live channel as the page does: the token offered as a
// subprotocol, with the given Origin.
func dialLive(t *testing.T, w *webServer, _ *http.Client, path, origin string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	return dialOffering(w, path, origin, []string{web.Subprotocol, web.TokenProtocolPrefix + w.token})
}

func dialOffering(w *webServer, path, origin string, protocols []string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(w.base, "http")+path, &websocket.DialOptions{HTTPHeader: h, Subprotocols: protocols})
}

func TestLiveChannelChecksOrigin(t *testing.T) {
	root := testutil.Root(t)
	startSession(t, root, "s", "sleep", "600")
	w := startWeb(t, root)
	c := loggedIn(t, w)
	for _, o := range []string{"http://evil.example", "http://127.0.0.1:1", "null", "https://" + strings.TrimPrefix(w.base, "http://")} {
		conn, resp, err := dialLive(t, w, c, "/live/list", o)
		if err == nil {
			conn.CloseNow()
			t.Errorf("Origin %s: the live channel opened", o)
		} else if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %s: %v, want 403", o, err)
		}
	}
	conn, _, err := dialLive(t, w, c, "/live/list", w.base)
	if err != nil {
		t.Fatalf("same origin: %v", err)
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, b, err := conn.Read(ctx)
	if err != nil || !strings.Contains(string(b), `"sessions":[{`) {
		t.Fatalf("list message %q, %v", b, err)
	}
}

// TestReadOnlyRefusesInput: without --write, what a page types never
// reaches the session.
func TestReadOnlyRefusesInput(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "cat", "cat")
	w := startWeb(t, root)
	c := loggedIn(t, w)
	conn, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, m := range []string{`{"t":"text","data":"sneaky"}`, `{"t":"paste","data":"sneaky"}`, `{"t":"key","key":"Enter"}`} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	refusals := 0
	for refusals < 3 {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the refusals: %v", err)
		}
		var m struct{ T, Msg string }
		json.Unmarshal(b, &m)
		if m.T == "error" && strings.Contains(m.Msg, "read-only") {
			refusals++
		}
	}
	// A STATUS round trip on a fresh connection: anything the server had
	// sent before it would have been read by the daemon by now.
	if _, err := client.Status(root, id, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if out := testutil.Run(t, root, "peek", "--plain", id).Stdout; strings.Contains(out, "sneaky") {
		t.Fatalf("read-only input reached the session:\n%s", out)
	}
}

// TestMessageTooLarge: a message past MaxMessage closes the connection
// (and nothing reaches the session).
func TestMessageTooLarge(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "cat", "cat")
	w := startWeb(t, root, "--write")
	c := loggedIn(t, w)
	conn, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	big := `{"t":"paste","data":"` + strings.Repeat("x", 300<<10) + `"}`
	conn.Write(ctx, websocket.MessageText, []byte(big))
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
				t.Fatalf("closed with %v, want 1009 (message too big)", err)
			}
			break
		}
	}
	if out := testutil.Run(t, root, "peek", "--plain", id).Stdout; strings.Contains(out, "xxxx") {
		t.Fatalf("an oversized paste reached the session")
	}
}

// TestPeekRedrawBaseline: a read-only client asking for the redraw form
// gets the exact screen, so an emulator fed the live stream after it
// agrees with the daemon's (here: the cursor, which the text form loses).
func TestPeekRedrawBaseline(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "pos", "sh", "-c", `printf 'abc\033[5;7Hxy\033[?1h'; exec sleep 600`)
	testutil.WaitFor(t, 10*time.Second, "the output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, "xy")
	})
	conn, err := client.Dial(root, id)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Raw().SetDeadline(time.Now().Add(10 * time.Second))
	snap, err := conn.Peek(proto.PeekRedraw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(snap.Screen), term.RedrawPrefix) {
		t.Fatalf("baseline %q is not the redraw form", snap.Screen)
	}
	scr := term.New(snap.Rows, snap.Cols, term.Options{})
	scr.Write(snap.Screen)
	if y, x, _ := scr.Cursor(); y != 4 || x != 8 {
		t.Errorf("cursor at %d,%d after the baseline, want 4,8", y, x)
	}
	if !scr.Modes().AppCursor {
		t.Errorf("application cursor mode lost in the baseline")
	}
	// The connection is read-only: its DATA is ignored.
	conn.WriteFrame(proto.Data, []byte("typed"))
	st, err := client.Status(root, id, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := proto.ParseStatus(st); err != nil || s.Clients.ReadOnly != 1 {
		t.Errorf("STATUS %s: want one read-only client", st)
	}
}

// TestListen refuses a host name and warns for an address beyond this
// machine.
func TestListenFlag(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.RunCmd(t, testutil.Command(t, root, "web", "--listen", "example.com:80"))
	if r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "IP address") {
		t.Errorf("--listen example.com:80: code %d, stderr %q", r.Code, r.Stderr)
	}
	r = testutil.RunCmd(t, testutil.Command(t, root, "web", "--listen", "nonsense"))
	if r.Code != 1 || !strings.Contains(r.Stderr, "HOST:PORT") {
		t.Errorf("--listen nonsense: code %d, stderr %q", r.Code, r.Stderr)
	}
	cmd := testutil.Command(t, root, "web", "--listen", "0.0.0.0:0")
	errOut, _ := cmd.StderrPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	buf := make([]byte, 256)
	n, _ := out.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "http://127.0.0.1:") {
		t.Errorf("URL %q", buf[:n])
	}
	n, _ = errOut.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "warning: listening on 0.0.0.0:0") {
		t.Errorf("warning %q", buf[:n])
	}
}

// TestEndedPagesDoNotLeak: the page of an ended session holds its live
// connection only while it is open, so closing pages frees their places.
func TestEndedPagesDoNotLeak(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "gone", "sh", "-c", "exit 3")
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		return strings.Contains(testutil.Run(t, root, "list").Stdout, "exit 3")
	})
	w := runInProcess(t, web.Options{Root: root})
	c := loggedIn(t, w)
	for i := 0; i < web.MaxLiveConns+10; i++ {
		conn, resp, err := dialLive(t, w, c, "/live/s/"+id, w.base)
		if err != nil {
			code := 0
			if resp != nil {
				code = resp.StatusCode
			}
			t.Fatalf("page %d of an ended session: %v (%d): closed pages kept their places", i+1, err, code)
		}
		// As a page does, it acknowledges each screen: the first may come
		// before the session's end is known, and the ended one only
		// after an acknowledgement.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := readUntilErr(ctx, conn, `"t":"ended"`); err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		cancel()
		conn.Close(websocket.StatusNormalClosure, "")
	}
}

// TestRestartedSessionIsFollowedAfresh: a page that stayed on a session
// that ended keeps its follower; a session restarted under the same id is
// followed afresh for the next page.
func TestRestartedSessionIsFollowedAfresh(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "again", "sh", "-c", `echo "run-$$-"; exec sleep 600`)
	w := runInProcess(t, web.Options{Root: root})
	c := loggedIn(t, w)
	old, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer old.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first := runMark.FindString(readUntil(t, ctx, old, `["run-`))
	testutil.MustRun(t, root, "kill", id)
	readUntil(t, ctx, old, `"t":"ended"`)
	testutil.MustRun(t, root, "restart", "-y", id)

	neu, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer neu.CloseNow()
	readUntil(t, ctx, neu, `"status":"running"`)
	for {
		m := runMark.FindString(readUntil(t, ctx, neu, `["run-`))
		if m != "" && m != first {
			break
		}
	}
}

var runMark = regexp.MustCompile(`run-[0-9]+-`)

func readUntil(t *testing.T, ctx context.Context, c *websocket.Conn, want string) string {
	t.Helper()
	m, err := readUntilErr(ctx, c, want)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readUntilErr reads (acknowledging screen updates) until a message
// contains want.
func readUntilErr(ctx context.Context, c *websocket.Conn, want string) (string, error) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return "", fmt.Errorf("waiting for %s: %w", want, err)
		}
		if strings.Contains(string(b), `"t":"screen"`) {
			c.Write(ctx, websocket.MessageText, []byte(`{"t":"ack"}`))
		}
		if strings.Contains(string(b), want) {
			return string(b), nil
		}
	}
}

// TestWriteFollowsModes: with --write, keys and pastes reach the session
// encoded for its modes: ESC O A for up in application cursor mode, and a
// paste in brackets once the program asked for bracketed paste.
func TestWriteFollowsModes(t *testing.T) {
	root := testutil.Root(t)
	// stty -echo: only what od prints shows, one line per input byte run.
	id := startSession(t, root, "modes", "sh", "-c", `stty raw -echo; printf '\033[?1h\033[?2004hready\n'; exec od -An -c`)
	testutil.WaitFor(t, 10*time.Second, "the program", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, "ready")
	})
	w := runInProcess(t, web.Options{Root: root, Write: true})
	c := loggedIn(t, w)
	conn, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	readUntil(t, ctx, conn, `["ready`) // on the screen: the server's emulator has the modes
	for _, m := range []string{`{"t":"key","key":"ArrowUp","mods":0}`, `{"t":"paste","data":"p\nq"}`,
		`{"t":"key","key":"c","mods":4}`, `{"t":"text","data":"0123456789abcdef"}`} {
		if err := conn.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	// od prints 16 bytes a line: ESC O A, the bracketed paste (its
	// newline a carriage return), ctrl+c as a byte, then the text.
	// (Compared without spaces: in raw mode od's lines wrap anywhere.)
	want := strings.Join(strings.Fields(`033 O A 033 [ 2 0 0 ~ p \r q 033 [ 2 0 1 ~ 003 0 1 2`), "")
	var got string
	defer func() {
		if t.Failed() {
			t.Logf("screen: %s", got)
		}
	}()
	testutil.WaitFor(t, 10*time.Second, "the keys, encoded for the modes", func() bool {
		got = strings.Join(strings.Fields(testutil.Run(t, root, "peek", "--plain", id).Stdout), "")
		return strings.Contains(got, want)
	})
}

// TestManyEvents: events keep coming while pages are sent them (run with
// -race: the list a page is sent is never changed under it).
func TestManyEvents(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "titles", "sh", "-c", `sleep 1; i=0; while [ $i -lt 300 ]; do printf '\033]0;t%d\007' $i; i=$((i+1)); sleep 0.01; done; echo done; exec sleep 600`)
	w := runInProcess(t, web.Options{Root: root})
	c := loggedIn(t, w)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error)
	for i := 0; i < 3; i++ {
		conn, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		go func() {
			_, err := readUntilErr(ctx, conn, `["done`)
			done <- err
		}()
	}
	for i := 0; i < 3; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
