package web

import (
	"bytes"
	"context"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/eventlog"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Remote hosts (pty web --remotes): their sessions are listed in groups
// of their own, and a session page follows one over a route to the host,
// reconnecting as pty attach --remote does.
const (
	// RemoteRefresh is how long after a host's answer it is asked again.
	RemoteRefresh = 5 * time.Second
	// RemoteWait bounds one ask of a host.
	RemoteWait = 15 * time.Second
	// reconnectFirst and reconnectCap are the backoff of a followed
	// remote session whose connection dropped.
	reconnectFirst = 100 * time.Millisecond
	reconnectCap   = 15 * time.Second
)

// RemoteHost is another machine whose sessions the pages show.
type RemoteHost struct {
	Label string
	// List asks the host for its sessions.
	List func(ctx context.Context) ([]RemoteRow, error)
	// Route connects to the host's session ref, as the per-session
	// protocol's other end; done releases the route.
	Route func(ctx context.Context, ref string) (c *client.Conn, done func(), err error)
	// Final says a Route error is the host's answer (the session is
	// gone), not a lost connection to retry.
	Final func(error) bool
	// Run runs "pty ARGS" on the host, its standard output written to
	// out, until it exits or ctx ends; what it says on standard error
	// is the error when it fails. The pages' actions (pty kill, pty
	// restart -y) and events (pty events) are run this way; nil leaves
	// them out.
	Run func(ctx context.Context, args []string, out io.Writer) error
}

// RemoteRow is one session of a host's list.
type RemoteRow struct {
	Name, Status, Command, Cwd, DisplayName string
	// Changed is when the session started, or ended, by this machine's
	// clock; zero when the host did not say (the original's does not).
	Changed  time.Time
	Ending   string   // how an exited session ended: "exit 3"
	Activity []string // its activity markers: "bell", "notified"
}

// remoteGroup is one host in the list message.
type remoteGroup struct {
	Label    string        `json:"label"`
	Sessions []remoteEntry `json:"sessions"`
	Error    string        `json:"error,omitempty"`
	Asking   bool          `json:"asking,omitempty"`
}

type remoteEntry struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	Status  string `json:"status"`
	Cwd     string `json:"cwd"`
	Command string `json:"command"`
	// When, Exit and Activity are as a local session's (listEntry); When
	// is empty for a host that sent no times.
	When     string   `json:"when,omitempty"`
	Exit     string   `json:"exit,omitempty"`
	Activity []string `json:"activity,omitempty"`
}

// remotes keeps what each host last answered.
type remotes struct {
	hosts []RemoteHost

	mu     sync.Mutex
	groups []remoteGroup
	rows   []map[string]RemoteRow // by host, by name
}

func newRemotes(hosts []RemoteHost) *remotes {
	r := &remotes{hosts: hosts, groups: make([]remoteGroup, len(hosts)), rows: make([]map[string]RemoteRow, len(hosts))}
	for i, h := range hosts {
		r.groups[i] = remoteGroup{Label: listing.Printable(h.Label), Sessions: []remoteEntry{}, Asking: true}
	}
	return r
}

// run asks every host on its own, so a slow one delays no other, and
// calls changed after each answer.
func (r *remotes) run(ctx context.Context, changed func()) {
	for i := range r.hosts {
		go func() {
			for {
				r.ask(ctx, i)
				changed()
				t := time.NewTimer(RemoteRefresh)
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		}()
	}
}

func (r *remotes) ask(ctx context.Context, i int) {
	h := r.hosts[i]
	actx, cancel := context.WithTimeout(ctx, RemoteWait)
	rows, err := h.List(actx)
	timedOut := actx.Err() != nil && ctx.Err() == nil
	cancel()
	g := remoteGroup{Label: listing.Printable(h.Label), Sessions: []remoteEntry{}}
	byName := map[string]RemoteRow{}
	switch {
	case timedOut:
		g.Error = listing.Printable(h.Label) + " did not answer within " + RemoteWait.String()
	case err != nil:
		g.Error = listing.Printable(err.Error())
	default:
		sort.SliceStable(rows, func(a, b int) bool { return rowName(rows[a]) < rowName(rows[b]) })
		for _, row := range rows {
			byName[row.Name] = row
			e := remoteEntry{ID: listing.Printable(row.Name), Status: listing.Printable(row.Status),
				Cwd: listing.Printable(row.Cwd), Command: listing.Printable(row.Command)}
			if row.DisplayName != "" && row.DisplayName != row.Name {
				e.Name = listing.Printable(row.DisplayName)
			}
			e.When, e.Exit = remoteWhen(row, time.Now())
			e.Activity = (&layout.Metadata{Activity: row.Activity}).ActivityMarkers()
			g.Sessions = append(g.Sessions, e)
		}
	}
	r.mu.Lock()
	r.groups[i] = g
	if err == nil {
		r.rows[i] = byName
	}
	r.mu.Unlock()
}

// remoteWhen is a host's row's age and ending, worded as a local row's.
func remoteWhen(r RemoteRow, now time.Time) (when, exit string) {
	if r.Changed.IsZero() {
		return "", ""
	}
	age := listing.FormatAge(now.Sub(r.Changed))
	switch r.Status {
	case "running":
		return "up " + age, ""
	case "exited":
		return "ended " + age + " ago", listing.Printable(r.Ending)
	}
	return "started " + age + " ago", ""
}

func rowName(r RemoteRow) string {
	if r.DisplayName != "" {
		return r.DisplayName
	}
	return r.Name
}

// current is every host's group, for the list message.
func (r *remotes) current() []remoteGroup {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]remoteGroup(nil), r.groups...)
}

// target is the host named label, or nil.
func (r *remotes) target(label string) *remoteTarget {
	for i := range r.hosts {
		if r.hosts[i].Label == label {
			return &remoteTarget{r: r, i: i}
		}
	}
	return nil
}

// remoteTarget is one host, for a session page.
type remoteTarget struct {
	r *remotes
	i int
}

func (t *remoteTarget) host() RemoteHost { return t.r.hosts[t.i] }

// key is a followed session's key in server.followers: never an id.
func (t *remoteTarget) key(id string) string { return "\x00" + t.host().Label + "\x00" + id }

// has reports whether the host's last list had session id.
func (t *remoteTarget) has(id string) bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	_, ok := t.r.rows[t.i][id]
	return ok
}

// session is the host's session id as a record for the page's hello:
// what the host's list last said of it, running unless it said
// otherwise (the route says the rest).
func (t *remoteTarget) session(id string) layout.Session {
	t.r.mu.Lock()
	row, ok := t.r.rows[t.i][id]
	t.r.mu.Unlock()
	m := &layout.Metadata{}
	sess := layout.Session{ID: id, Meta: m, Status: layout.Running}
	if ok {
		if row.DisplayName != "" {
			m.DisplayName = &row.DisplayName
		}
		if row.Command != "" {
			m.DisplayCommand = row.Command
		}
		if row.Status != "" && row.Status != string(layout.Running) {
			sess.Status = layout.Status(row.Status)
		}
	}
	return sess
}

// runRemote follows the session over routes to its host: a dropped
// connection is reconnected with backoff, and the emulator carries on
// with the lines the session printed meanwhile (stitch.go); it ends with
// the session's EXIT, a route the host refuses, or the last viewer.
func (f *follower) runRemote() {
	h := f.remote.host()
	delay := reconnectFirst
	var st stitch
	for {
		conn, done, err := h.Route(f.ctx, f.id)
		if err == nil {
			f.setLink("")
			exited := f.stream(conn, &st)
			done()
			if exited {
				return
			}
			delay = reconnectFirst
			f.setLink("reconnecting to " + listing.Printable(h.Label) + "…")
		} else if h.Final != nil && h.Final(err) {
			f.mu.Lock()
			f.refused = listing.Printable(err.Error())
			f.mu.Unlock()
			return
		} else {
			f.setLink("reconnecting to " + listing.Printable(h.Label) + "… (" + listing.Printable(err.Error()) + ")")
		}
		t := time.NewTimer(delay)
		select {
		case <-f.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, reconnectCap)
	}
}

// setLink says whether the route is down, for the pages.
func (f *follower) setLink(down string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.linkDown != down {
		f.linkDown = down
		f.notify()
	}
}

func (f *follower) link() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.linkDown
}

// remotePath parses HOST/ID of a remote session's path: HOST one of the
// hosts, ID what a session id can be.
func (s *server) remotePath(rest string) (*remoteTarget, string, bool) {
	if s.rem == nil {
		return nil, "", false
	}
	host, id, ok := strings.Cut(rest, "/")
	if !ok || !validID(id) {
		return nil, "", false
	}
	rt := s.rem.target(host)
	return rt, id, rt != nil
}

// refusal is why the host refused the route, or "".
func (f *follower) refusal() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused
}

// A remote session's events are the host's: its pty events, run through
// the transport.
const (
	// MaxRemoteEventLine bounds one line of a host's pty events --json;
	// a longer one is left out.
	MaxRemoteEventLine = 64 << 10
	// remoteEventsAgain is how long after a follow starts the host's
	// recent events are read a second time, for a line logged while the
	// follow was starting there.
	remoteEventsAgain = 2 * time.Second
)

// followRemoteEvents keeps the session's recent events as its host logs
// them: pty events --json, following, run again with backoff when it
// fails (the connection dropped), and the recent ones read each time it
// starts, so the events logged while it was down show too. It ends when
// the follow does (the session ended) or with the last viewer.
func (f *follower) followRemoteEvents() {
	h := f.remote.host()
	var ev remoteEvents
	// One at a time, so that the pages get the events as last added.
	var mu sync.Mutex
	push := func(ls [][]byte) {
		mu.Lock()
		defer mu.Unlock()
		if ev.add(f.id, ls) {
			f.setEvents(ev.formatted())
		}
	}
	delay := reconnectFirst
	for {
		started := time.Now()
		ctx, cancel := context.WithCancel(f.ctx)
		done := make(chan error, 1)
		go func() {
			w := &lineWriter{fn: func(b []byte) { push([][]byte{b}) }}
			done <- h.Run(ctx, []string{"events", "--json", "--", f.id}, w)
		}()
		recent := func() {
			if ls, err := recentRemote(ctx, h, f.id); err == nil {
				push(ls)
			}
		}
		recent()
		again := time.NewTimer(remoteEventsAgain)
		var err error
	wait:
		for {
			select {
			case err = <-done:
				break wait
			case <-again.C:
				recent()
			}
		}
		again.Stop()
		cancel()
		if err == nil || f.ctx.Err() != nil {
			return // the session ended, or no one watches
		}
		if time.Since(started) > reconnectCap {
			delay = reconnectFirst
		}
		t := time.NewTimer(delay)
		select {
		case <-f.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(2*delay, reconnectCap)
	}
}

// recentRemote is the host's pty events --recent --json for id: its
// raw lines.
func recentRemote(ctx context.Context, h RemoteHost, id string) ([][]byte, error) {
	var ls [][]byte
	w := &lineWriter{fn: func(b []byte) {
		if len(ls) < recentEvents {
			ls = append(ls, bytes.Clone(b))
		}
	}}
	ctx, cancel := context.WithTimeout(ctx, RemoteWait)
	defer cancel()
	err := h.Run(ctx, []string{"events", "--recent", "--json", "--", id}, w)
	return ls, err
}

// sendRecentEvents sends the page of a session of the host that is not
// running its recent events.
func (t *remoteTarget) sendRecentEvents(ctx context.Context, c *wsConn, id string) {
	h := t.host()
	lines := []string{}
	if h.Run != nil {
		var ev remoteEvents
		if ls, err := recentRemote(ctx, h, id); err == nil {
			ev.add(id, ls)
			lines = ev.formatted()
		}
	}
	c.sendJSON(ctx, map[string]any{"t": "events", "lines": lines})
}

// setEvents replaces the events the pages show.
func (f *follower) setEvents(evs []string) {
	f.mu.Lock()
	f.events = evs
	f.evSeq++
	f.notify()
	f.mu.Unlock()
}

// remoteEvents are a host's newest events of one session, in the order
// of their times, each once: the follow and the reads of the recent ones
// overlap.
type remoteEvents struct {
	mu    sync.Mutex
	lines []eventlog.Line
	at    []time.Time
}

// add takes raw lines, and reports whether any was new.
func (e *remoteEvents) add(id string, raws [][]byte) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	added := false
	for _, raw := range raws {
		l := eventlog.Line{ID: id, Raw: bytes.Clone(raw)}
		if l.Event.UnmarshalJSON(raw) != nil || !l.Valid() {
			continue
		}
		dup := false
		for _, k := range e.lines {
			if bytes.Equal(k.Raw, l.Raw) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		// In time order: a line the second read of the recent ones
		// found goes where it was logged.
		ts := layout.ParseTime(l.Event.TS)
		i := len(e.lines)
		for i > 0 && e.at[i-1].After(ts) {
			i--
		}
		e.lines = slices.Insert(e.lines, i, l)
		e.at = slices.Insert(e.at, i, ts)
		added = true
	}
	if n := len(e.lines); n > recentEvents {
		e.lines = slices.Delete(e.lines, 0, n-recentEvents)
		e.at = slices.Delete(e.at, 0, n-recentEvents)
	}
	return added
}

func (e *remoteEvents) formatted() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, len(e.lines))
	for i, l := range e.lines {
		out[i] = eventlog.Format(l, time.Local)
	}
	return out
}

// lineWriter calls fn with each whole line written to it (without its
// newline; fn must copy it to keep it), leaving out those longer than
// MaxRemoteEventLine.
type lineWriter struct {
	fn   func([]byte)
	buf  []byte
	skip bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !w.skip {
			if len(w.buf)+len(chunk) > MaxRemoteEventLine {
				w.skip, w.buf = true, w.buf[:0]
			} else {
				w.buf = append(w.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !w.skip {
			w.fn(w.buf)
		}
		w.buf, w.skip = w.buf[:0], false
		p = p[i+1:]
	}
	return n, nil
}
