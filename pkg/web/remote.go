package web

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/client"
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
// connection is reconnected with backoff, and the host's baseline then
// replaces the screen; it ends with the session's EXIT, a route the host
// refuses, or the last viewer.
func (f *follower) runRemote() {
	h := f.remote.host()
	delay := reconnectFirst
	for {
		conn, done, err := h.Route(f.ctx, f.id)
		if err == nil {
			exited := f.stream(conn)
			done()
			if exited {
				return
			}
			delay = reconnectFirst
			f.mu.Lock()
			f.scr = nil // the next baseline starts a new emulator
			f.mu.Unlock()
		} else if h.Final != nil && h.Final(err) {
			f.mu.Lock()
			f.refused = listing.Printable(err.Error())
			f.mu.Unlock()
			return
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
