package web

import (
	"net"
	"net/http"
	"sync"
)

// connTracker bounds the connections that have not yet sent a whole
// request (or sit idle between two): past MaxPendingConns, the one
// waiting longest is closed to make room, so connections that never
// finish their headers cannot keep a real request out. Connections
// serving a request, and live channels (which presented the token), are
// never closed for this. Past MaxConns in all, a new connection is closed
// at once when no waiting one can make room.
type connTracker struct {
	net.Listener
	maxPending, maxTotal int

	mu      sync.Mutex
	conns   map[*trackedConn]struct{} // every open connection
	pending int                       // how many of conns are pending
	seq     uint64                    // orders pending connections by age
}

type trackedConn struct {
	net.Conn
	t *connTracker
	// Guarded by t.mu.
	pending bool
	since   uint64
	gone    bool
}

func trackConns(l net.Listener, maxPending, maxTotal int) *connTracker {
	return &connTracker{Listener: l, maxPending: maxPending, maxTotal: maxTotal,
		conns: map[*trackedConn]struct{}{}}
}

func (t *connTracker) Accept() (net.Conn, error) {
	for {
		c, err := t.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, t: t}
		t.mu.Lock()
		if t.pending >= t.maxPending || len(t.conns) >= t.maxTotal {
			t.evictOldestLocked()
		}
		if len(t.conns) >= t.maxTotal {
			t.mu.Unlock()
			c.Close()
			continue
		}
		t.conns[tc] = struct{}{}
		t.setPendingLocked(tc, true)
		t.mu.Unlock()
		return tc, nil
	}
}

// evictOldestLocked closes the pending connection waiting longest, if
// any.
func (t *connTracker) evictOldestLocked() {
	var old *trackedConn
	for c := range t.conns {
		if c.pending && (old == nil || c.since < old.since) {
			old = c
		}
	}
	if old != nil {
		t.removeLocked(old)
		old.Conn.Close()
	}
}

func (t *connTracker) setPendingLocked(c *trackedConn, p bool) {
	if c.gone {
		return
	}
	if p {
		t.seq++
		c.since = t.seq
	}
	if p != c.pending {
		if p {
			t.pending++
		} else {
			t.pending--
		}
		c.pending = p
	}
}

func (t *connTracker) removeLocked(c *trackedConn) {
	if c.gone {
		return
	}
	t.setPendingLocked(c, false)
	c.gone = true
	delete(t.conns, c)
}

// connState is the http.Server's ConnState hook: a connection is pending
// while it has no whole request (new, or idle between requests).
func (t *connTracker) connState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch st {
	case http.StateNew, http.StateIdle:
		t.setPendingLocked(tc, true)
	case http.StateActive, http.StateHijacked:
		t.setPendingLocked(tc, false)
	case http.StateClosed:
		t.removeLocked(tc)
	}
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	c.t.removeLocked(c)
	c.t.mu.Unlock()
	return c.Conn.Close()
}
