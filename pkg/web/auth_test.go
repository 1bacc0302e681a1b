package web_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/web"
)

// recorder is an HTTP server on another port of 127.0.0.1, as another
// local user could run: it records every request's headers.
type recorder struct {
	addr string
	mu   sync.Mutex
	seen []recorded
}

type recorded struct {
	url    string
	header http.Header
}

func startRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{addr: ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, recorded{url: r.URL.String(), header: r.Header.Clone()})
		rec.mu.Unlock()
		// The page it serves asks the browser for more of this server,
		// with credentials: whatever the browser would attach comes along.
		fmt.Fprint(rw, `<!doctype html><img src="/img"><script>
fetch('/fetch', {credentials: 'include'}).finally(() => { window.done = true; });
</script>`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rec
}

func (r *recorder) requests() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.seen...)
}

func (r *recorder) saw(path string) bool {
	for _, q := range r.requests() {
		if strings.HasPrefix(q.url, path) {
			return true
		}
	}
	return false
}

// TestBrowserTokenStaysHome: after the browser has used pty web, a server
// on another port of the same host that the browser is led to (from the
// pty page itself, and directly) receives neither the token nor anything
// that, replayed, opens a live channel.
func TestBrowserTokenStaysHome(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	id := startSession(t, root, "secret", "sh", "-c", `echo private-output; exec sleep 600`)
	w := startWeb(t, root, "--write")
	rec := startRecorder(t)

	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the list", fmt.Sprintf(`!!document.querySelector('li.session[data-id=%q]')`, id))
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the session's screen", `document.querySelector('#screen').textContent.includes('private-output')`)

	// From the pty page: a fetch and an image (which its CSP should
	// stop), then a link followed to the other server.
	other := "http://" + rec.addr
	eval[bool](t, ctx, fmt.Sprintf(`fetch(%q, {credentials: 'include', mode: 'no-cors'}).catch(() => {});
const img = new Image(); img.src = %q; document.body.append(img); true`, other+"/from-page-fetch", other+"/from-page-img"))
	eval[bool](t, ctx, fmt.Sprintf(`setTimeout(() => { location.href = %q; }, 100); true`, other+"/from-page-link"))
	testutil.WaitFor(t, 15*time.Second, "the link to reach the other server", func() bool { return rec.saw("/from-page-link") })
	// Directly, as a URL the user is made to open.
	if err := chromedp.Do(ctx, chromedp.Navigate(other+"/direct")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the other page's own requests", `window.done === true`)
	testutil.WaitFor(t, 15*time.Second, "its image", func() bool { return rec.saw("/img") })

	reqs := rec.requests()
	for _, q := range reqs {
		dump := q.url + "\n"
		for k, vs := range q.header {
			dump += k + ": " + strings.Join(vs, ", ") + "\n"
		}
		if strings.Contains(dump, w.token) {
			t.Errorf("the other server received the token:\n%s", dump)
		}
		// Replayed by a plain client, what it received opens nothing.
		h := http.Header{}
		for k, vs := range q.header {
			switch http.CanonicalHeaderKey(k) {
			case "Connection", "Upgrade", "Host", "Content-Length", "Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions":
				continue
			}
			h[k] = vs
		}
		h.Set("Origin", w.base)
		for _, p := range []string{"/live/list", "/live/s/" + id} {
			dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			conn, resp, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(w.base, "http")+p,
				&websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{web.Subprotocol}})
			cancel()
			if err == nil {
				conn.CloseNow()
				t.Errorf("the headers of %s, replayed, opened %s:\n%s", q.url, p, dump)
			} else if resp == nil || resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("the headers of %s, replayed on %s: %v, want 401", q.url, p, err)
			}
		}
	}
	t.Logf("the other server saw %d requests", len(reqs))

	// A tab of its own starts without the token, and says so.
	fresh := tab(t)
	if err := chromedp.Do(fresh, chromedp.Navigate(w.base+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, fresh, "the page to ask for the printed URL", `document.querySelector('#conn').textContent.includes('no access token')`)
}

// TestHalfOpenConnections: connections that never finish their headers,
// more of them than the server keeps, do not hold up a real request: it
// is answered well before the header timeout would free their places.
func TestHalfOpenConnections(t *testing.T) {
	root := testutil.Root(t)
	startSession(t, root, "s", "sleep", "600")
	w := runInProcess(t, web.Options{Root: root})
	host := strings.TrimPrefix(w.base, "http://")
	// A page already open keeps its live channel through the flood.
	early, _, err := dialLive(t, w, nil, "/live/list", w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer early.CloseNow()
	ectx, ecancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer ecancel()
	readUntil(t, ectx, early, `"sessions":[{`)
	for i := 0; i < 200; i++ {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nX-Half: ", host); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), web.HeaderTimeout)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(w.base, "http")+"/live/list",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {w.base}}, Subprotocols: []string{web.Subprotocol, web.TokenProtocolPrefix + w.token}})
	if err != nil {
		t.Fatalf("a live channel behind 200 half-open connections: %v after %v", err, time.Since(start))
	}
	defer conn.CloseNow()
	if _, b, err := conn.Read(ctx); err != nil || !strings.Contains(string(b), `"sessions":[{`) {
		t.Fatalf("the list behind 200 half-open connections: %q, %v after %v", b, err, time.Since(start))
	}
	// And a page, on a fresh connection.
	req, _ := http.NewRequestWithContext(ctx, "GET", w.base+"/", nil)
	resp, err := (&http.Transport{DisableKeepAlives: true}).RoundTrip(req)
	if err != nil {
		t.Fatalf("a page behind 200 half-open connections: %v after %v", err, time.Since(start))
	}
	resp.Body.Close()
	t.Logf("answered in %v", time.Since(start))

	later := startSession(t, root, "later", "sleep", "600")
	readUntil(t, ectx, early, later)
}
