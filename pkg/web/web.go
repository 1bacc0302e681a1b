// Package web serves the session registry to a browser: every session,
// live, in one page (`pty web`). The server follows a viewed session the
// way `pty peek -f` does (a read-only PEEK client, which never changes the
// session's size), keeps the screen in its own emulator (pkg/term) and
// sends the page the rows that changed, as JSON rendered by the page's own
// script with textContent only: whatever a session prints stays text.
//
// Everything a browser can send is bounded (see docs/web.md): the size of
// a message, of a paste, the number of live connections. A viewer that
// stops reading is dropped, never buffered for: each viewer has at most
// one message in flight and is sent the latest screen when it is ready.
package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

// DefaultListen is where pty web listens unless told otherwise.
const DefaultListen = "127.0.0.1:7681"

// Limits on what a browser can make the server do.
const (
	// MaxLiveConns bounds the live connections (list and session pages
	// together) open at once; more are refused with 503.
	MaxLiveConns = 64
	// MaxPendingConns bounds the connections that have not sent a whole
	// request yet (or are idle between two); past it, the one waiting
	// longest is closed. Live channels never count.
	MaxPendingConns = 64
	// MaxConns bounds the TCP connections open at once; past it a new
	// one is closed, unless a pending one can make room.
	MaxConns = 256
	// HeaderTimeout bounds the time from a connection's opening (or the
	// end of its previous request) to the end of its request's headers.
	HeaderTimeout = 10 * time.Second
	// RequestTimeout bounds reading a whole request and writing its
	// answer; a live channel is not bound by it once open.
	RequestTimeout = 30 * time.Second
	// MaxMessage bounds one message from the page; a larger one closes
	// its connection.
	MaxMessage = 256 << 10
	// MaxPaste bounds the text of one paste (and of one message of typed
	// text).
	MaxPaste = 128 << 10
	// MaxHistoryLines bounds the scrollback a page keeps, whatever the
	// session's (a page keeps as many lines as the session, and one
	// more for a marker line).
	MaxHistoryLines = 100000
	// MaxHistoryBatch bounds the scrollback lines one update carries, in
	// bytes of JSON; the rest follows in the next updates.
	MaxHistoryBatch = 1 << 20
	// FrameInterval is the shortest time between two updates to a viewer.
	FrameInterval = 33 * time.Millisecond
	// WriteTimeout is how long a viewer may take to read one message, or
	// to acknowledge a screen update, before it is dropped.
	WriteTimeout = 10 * time.Second
)

// Options configures Run.
type Options struct {
	Root   string // the registry
	Listen string // host:port; DefaultListen when empty
	Write  bool   // let pages type into sessions
	// Token is the access token; a random one when empty. Tests set it.
	Token  string
	Stdout io.Writer // the URL line
	Stderr io.Writer // warnings
	// ViewerTimeout replaces WriteTimeout for acknowledgements (tests).
	ViewerTimeout time.Duration
	// Ready, if set, is called with the URL once the server accepts
	// connections.
	Ready func(url string)
	// Actions, with Write, lets pages kill, restart and start sessions
	// (see actions.go); nil leaves the buttons out.
	Actions *Actions
	// Remotes are other hosts whose sessions are listed and followed
	// too (remote.go), read-only.
	Remotes []RemoteHost
}

// tokenBytes is the token's entropy: 192 bits.
const tokenBytes = 24

// NewToken returns a random URL-safe token.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// CheckListen validates a --listen address and reports whether it is a
// loopback one. A host name other than localhost is refused: what it
// resolves to could change under us.
func CheckListen(addr string) (loopback bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q is not HOST:PORT (like 127.0.0.1:7681, or 0.0.0.0:7681 for every interface)", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return false, fmt.Errorf("--listen %q: the port must be a number from 0 to 65535", addr)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	if host == "" || ip == nil {
		return false, fmt.Errorf("--listen %q: give an IP address (127.0.0.1, ::1, 0.0.0.0 or an interface's address), not a host name", addr)
	}
	return ip.IsLoopback(), nil
}

// Run serves until ctx is done. It prints the URL to open, with the
// token after '#', as the first line of Stdout.
func Run(ctx context.Context, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	loopback, err := CheckListen(o.Listen)
	if err != nil {
		return err
	}
	if o.Token == "" {
		if o.Token, err = NewToken(); err != nil {
			return fmt.Errorf("make a token: %w", err)
		}
	}
	tl, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another pty web running? choose another port with --listen)", o.Listen, err)
	}
	ln := trackConns(tl, MaxPendingConns, MaxConns)
	defer ln.Close()
	s := newServer(o)
	defer s.close()

	addr := tl.Addr().(*net.TCPAddr)
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	if strings.HasPrefix(o.Listen, "localhost:") {
		host = "localhost"
	}
	u := "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port)) + "/#" + o.Token
	if _, err := fmt.Fprintln(o.Stdout, u); err != nil {
		return fmt.Errorf("print the URL: %w", err)
	}
	if !loopback {
		what := "watch"
		if o.Write {
			what = "watch and type into"
		}
		fmt.Fprintf(o.Stderr, "warning: listening on %s, beyond this machine: anyone who reaches it and holds the token can %s your sessions (plain HTTP: prefer SSH port forwarding, see docs/web.md)\n", o.Listen, what)
	}

	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: HeaderTimeout,
		ReadTimeout:       RequestTimeout,
		WriteTimeout:      RequestTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
		ConnState:         ln.connState,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if o.Ready != nil {
		o.Ready(u)
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	s.cancel() // ends the live connections, which Shutdown does not wait for
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	s.wg.Wait()
	return nil
}

// server is the HTTP handler and the state shared by its connections.
type server struct {
	o      Options
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // live connections

	mu        sync.Mutex
	live      int
	actions   int // running, at most MaxActions
	followers map[string]*follower
	reg       *registry
	rem       *remotes // Options.Remotes; nil without
}

func newServer(o Options) *server {
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{o: o, ctx: ctx, cancel: cancel, followers: map[string]*follower{}}
	if len(o.Remotes) > 0 {
		s.rem = newRemotes(o.Remotes)
	}
	s.reg = newRegistry(ctx, o.Root, o.Write && o.Actions != nil, s.rem)
	if s.rem != nil {
		s.rem.run(ctx, s.reg.refresh)
	}
	return s
}

func (s *server) close() { s.cancel() }

func (s *server) viewerTimeout() time.Duration {
	if s.o.ViewerTimeout > 0 {
		return s.o.ViewerTimeout
	}
	return WriteTimeout
}

// securityHeaders go on every response.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w.Header())
	if !validHost(r.Host) {
		http.Error(w, "403 forbidden: open pty web at an IP address (as printed) or localhost, not at the name "+strconv.Quote(r.Host), http.StatusForbidden)
		return
	}
	p := r.URL.Path
	if r.Method == http.MethodPost && p == actionPath {
		s.serveAction(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case p == "/":
		servePage(w, "list.html")
	case strings.HasPrefix(p, "/s/") && validID(p[len("/s/"):]):
		// A session that is not in the registry is a page that says so,
		// with 404, not one that waits for it forever.
		if _, err := layout.At(s.o.Root).Load(p[len("/s/"):]); err != nil {
			servePageStatus(w, "notfound.html", http.StatusNotFound)
			return
		}
		servePage(w, "session.html")
	case strings.HasPrefix(p, "/h/"):
		// A remote session's page: /h/HOST/ID, HOST a host of --remotes.
		if _, _, ok := s.remotePath(p[len("/h/"):]); !ok {
			servePageStatus(w, "notfound.html", http.StatusNotFound)
			return
		}
		servePage(w, "session.html")
	case strings.HasPrefix(p, "/static/"):
		serveStatic(w, r, p[len("/static/"):])
	case strings.HasPrefix(p, "/live/") && !s.hasToken(r):
		http.Error(w, "401 unauthorized: open the URL pty web printed (it carries the token)", http.StatusUnauthorized)
	case p == "/live/list":
		s.serveLive(w, r, s.liveList)
	case strings.HasPrefix(p, "/live/h/"):
		rt, id, ok := s.remotePath(p[len("/live/h/"):])
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.serveLive(w, r, func(ctx context.Context, c *wsConn) { s.liveSessionOn(ctx, c, rt, id) })
	case strings.HasPrefix(p, "/live/s/") && validID(p[len("/live/s/"):]):
		id := p[len("/live/s/"):]
		s.serveLive(w, r, func(ctx context.Context, c *wsConn) { s.liveSession(ctx, c, id) })
	default:
		http.NotFound(w, r)
	}
}

// validID accepts only what a session id can be, so a path never names
// anything outside the registry.
func validID(id string) bool { return layout.ValidateID(id) == nil }
