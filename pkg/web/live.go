package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/fsnotify/fsnotify"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// wsConn is one live connection to a page.
type wsConn struct {
	c *websocket.Conn
}

// send writes one message, dropping the viewer if it does not take it
// within WriteTimeout: nothing is queued for a viewer that stopped
// reading.
func (c *wsConn) send(ctx context.Context, msg []byte) error {
	wctx, cancel := context.WithTimeout(ctx, WriteTimeout)
	defer cancel()
	return c.c.Write(wctx, websocket.MessageText, msg)
}

func (c *wsConn) sendJSON(ctx context.Context, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.send(ctx, b)
}

// sameOrigin reports whether a WebSocket handshake comes from a page of
// this server. Browsers always send Origin with one; a page of another
// origin is refused even if it somehow learnt the token.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true // not a browser: it had to present the token itself
	}
	u, err := url.Parse(o)
	return err == nil && u.Scheme == "http" && strings.EqualFold(u.Host, r.Host)
}

// serveLive upgrades to a WebSocket and runs fn, within MaxLiveConns.
func (s *server) serveLive(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context, c *wsConn)) {
	if !sameOrigin(r) {
		http.Error(w, "403 forbidden: the live channel only serves this server's own pages", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.live >= MaxLiveConns || s.ctx.Err() != nil {
		s.mu.Unlock()
		http.Error(w, fmt.Sprintf("503 too many live connections (at most %d): close some pages", MaxLiveConns), http.StatusServiceUnavailable)
		return
	}
	s.live++
	s.wg.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.live--
		s.mu.Unlock()
		s.wg.Done()
	}()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		return // Accept has answered
	}
	defer c.CloseNow()
	c.SetReadLimit(MaxMessage)
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	fn(ctx, &wsConn{c: c})
}

// listEntry is one session as the list page shows it: the fields of a
// `pty list` line.
type listEntry struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"` // the display name, when it differs from the id
	Status  string `json:"status"`
	When    string `json:"when"` // "up 5m", "ended 2m ago", "started 3h ago"
	Cwd     string `json:"cwd"`
	Command string `json:"command"`
	Tags    string `json:"tags,omitempty"`
	Marker  string `json:"marker,omitempty"`
	// Exit is how an exited session ended ("exit 3", "killed (SIGHUP)"),
	// and Failed whether that was a failure.
	Exit   string `json:"exit,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// Preview is a running session's last lines (preview.go).
	Preview []string `json:"preview,omitempty"`
	// Activity is what the session did since someone last attached
	// ("bell", "notified"), shown as [bell] [notified].
	Activity []string `json:"activity,omitempty"`
}

func marker(m *layout.Metadata) string {
	switch {
	case m.Tags[layout.TagStatus] == layout.StatusFlapping:
		return "[flapping]"
	case layout.Permanent(m.Tags):
		return "[permanent]"
	}
	return ""
}

func tagText(m *layout.Metadata) string {
	keys := make([]string, 0, len(m.Tags))
	for k := range m.Tags {
		if !layout.ReservedTag(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = "#" + k + "=" + m.Tags[k]
	}
	return strings.Join(parts, " ")
}

func entryFor(s layout.Session, now time.Time, home string) listEntry {
	// Shown escaped as `pty list` shows them: a record written by
	// another tool may hold bidi controls that would reverse the page's
	// text, or zero-width characters that make one name pass for another.
	e := listEntry{ID: s.ID, Status: string(s.Shown()), Cwd: listing.Printable(listing.TildePath(s.Meta.Cwd, home)),
		Command: listing.Printable(listing.Command(s.Meta)), Tags: listing.Printable(tagText(s.Meta)), Marker: marker(s.Meta),
		Activity: s.Meta.ActivityMarkers()}
	if s.Meta.DisplayName != nil && *s.Meta.DisplayName != s.ID {
		e.Name = listing.Printable(*s.Meta.DisplayName)
	}
	age := "?"
	if d, ok := listing.Age(s, now); ok {
		age = listing.FormatAge(d)
	}
	switch s.Shown() {
	case layout.Running:
		e.When = "up " + age
	case layout.Exited:
		e.When = "ended " + age + " ago"
		e.Exit = listing.Ending(s.Meta)
		e.Failed = s.Meta.Failed() || (s.Meta.Signal != nil && *s.Meta.Signal > 0 && !s.Meta.Killed)
	default:
		e.When = "started " + age + " ago"
	}
	return e
}

// registry keeps the list message current for the list pages: rebuilt on
// the registry directory's change notifications (as `pty events` follows
// logs), and once a second while someone watches, for the ages.
type registry struct {
	root  string
	write bool     // pages may take actions (the list's form)
	rem   *remotes // the other hosts, or nil

	mu      sync.Mutex
	msg     []byte        // the current {"t":"list"} message
	changed chan struct{} // closed when msg changes
	viewers int
	err     string
	poke    chan struct{}
	// previews are the running sessions' last lines, by id.
	previews map[string][]string
	kick     chan struct{} // a first viewer came: preview now
}

func newRegistry(ctx context.Context, root string, write bool, rem *remotes) *registry {
	r := &registry{root: root, write: write, rem: rem, changed: make(chan struct{}), poke: make(chan struct{}, 1),
		kick: make(chan struct{}, 1)}
	r.rebuild()
	go r.run(ctx)
	go r.previewLoop(ctx)
	return r
}

func (r *registry) rebuild() {
	all, err := layout.At(r.root).List()
	now := time.Now()
	home := os.Getenv("HOME")
	msg := struct {
		T        string      `json:"t"`
		Sessions []listEntry `json:"sessions"`
		Error    string      `json:"error,omitempty"`
		Write    bool        `json:"write,omitempty"`
		// Remote is each other host's group (pty web --remotes).
		Remote []remoteGroup `json:"remote,omitempty"`
	}{T: "list", Sessions: []listEntry{}, Write: r.write}
	if r.rem != nil {
		msg.Remote = r.rem.current()
	}
	if err != nil {
		msg.Error = err.Error()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range listing.Select(all, listing.Filter{}, now) {
		e := entryFor(s, now, home)
		if s.Shown() == layout.Running {
			e.Preview = r.previews[s.ID]
		}
		msg.Sessions = append(msg.Sessions, e)
	}
	b, _ := json.Marshal(msg)
	if !bytes.Equal(b, r.msg) {
		r.msg = b
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

// current returns the message and a channel closed when it changes.
func (r *registry) current() ([]byte, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.msg, r.changed
}

func (r *registry) watch(delta int) {
	r.mu.Lock()
	r.viewers += delta
	r.mu.Unlock()
	if delta > 0 {
		r.refresh()
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
}

// refresh rebuilds the list soon.
func (r *registry) refresh() {
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

func (r *registry) run(ctx context.Context) {
	var events chan fsnotify.Event
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		if w.Add(r.root) == nil {
			events = w.Events
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	// Changes come in bursts (a session start writes several files):
	// one rebuild after the burst settles.
	// The timer is not pushed back by later events, so a session that
	// keeps writing its files cannot hold the list back.
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	pending := false
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if !pending {
				pending = true
				debounce.Reset(30 * time.Millisecond)
			}
		case <-debounce.C:
			pending = false
			r.rebuild()
		case <-r.poke:
			r.rebuild()
		case <-tick.C:
			r.mu.Lock()
			n := r.viewers
			r.mu.Unlock()
			if n > 0 || events == nil {
				r.rebuild()
			}
		}
	}
}

// liveList sends the list, and again whenever it changes.
func (s *server) liveList(ctx context.Context, c *wsConn) {
	s.reg.watch(1)
	defer s.reg.watch(-1)
	ctx = c.c.CloseRead(ctx) // the list page sends nothing
	for {
		msg, changed := s.reg.current()
		if err := c.send(ctx, msg); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			c.c.Close(websocket.StatusGoingAway, "")
			return
		case <-changed:
		}
		// At most FrameInterval apart, whatever the registry does.
		t := time.NewTimer(FrameInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
