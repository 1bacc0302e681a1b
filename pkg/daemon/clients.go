package daemon

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/proto"
)

// directMax bounds the queue flush may write from the caller's
// goroutine: bigger ones (output bursts) go through the writer goroutine
// so that the pump is back at the pty sooner.
const directMax = 64 << 10

// Limits on what clients may make the daemon hold (docs/protocol.md,
// Limits). MaxHeld is the budget for every client's queued output and
// replies together; past it, shed frees the worst holders. MaxConns
// bounds the connections served at once. maxReplies is how much a
// connection may leave unread in replies before its requests wait.
// releaseAfter is what freeing is worth handing back to the system.
// connGarbage is what serving a connection leaves behind beyond its
// buffers (its structures, its requests' and replies' copies), counted as
// freed when it ends: a session that scripts or a status bar peek every
// second would otherwise grow by that much a peek, for good, until its
// heap is large enough for the collector to run, at 4 MB.
const (
	MaxHeld      = 64 << 20
	MaxConns     = 256
	maxReplies   = 64 << 10
	releaseAfter = 1 << 20
	connGarbage  = 2 << 10
	maxLingering = 16
	refuseLinger = time.Second
)

// client is one connection. conn, raw, wake and drained are set by serve
// and constant after (dropLocked closes the channels); every other field
// is guarded by Daemon.mu. Its writer goroutine starts when it first has
// work: most connections are one-shot commands (peek, status) whose
// replies flushLocked writes at once, and they never need one.
type client struct {
	conn     *os.File // the socket, on the poller (listener)
	raw      syscall.RawConn
	role     int
	rows     int
	cols     int
	seq      int64 // the number of its last ATTACH or RESIZE as a writable client (d.requests)
	flags    byte
	live     bool // receives DATA
	pending  []byte
	spare    []byte
	overflow bool
	busy     bool // the writer holds a batch
	writer   bool // its writer goroutine runs (wakeWriterLocked)
	closed   bool
	// held is what counts against the daemon's budget: the capacity of
	// the buffers above and of the batch the writer holds (inflight,
	// inflightLen bytes of it unsent).
	held, inflight, inflightLen int
	drained                     chan struct{} // the writer finished a write
	// stale: output went by without reaching the client (a flood); a
	// redraw is due, and scheduled while redrawing.
	stale     bool
	redrawing bool
	// mark is the number (term.Screen.HistorySeq) of the newest
	// scrollback line the client's terminal has: a redraw writes the
	// lines after it first. pendStart is what it was when the queue was
	// last empty, which an overflow falls back to. drawn: the terminal
	// shows the session, so a redraw draws over it in place. missed:
	// output was dropped since the last redraw; owedSince: when the
	// terminal began to lack scrollback lines.
	mark, pendStart int64
	drawn, missed   bool
	owing           bool
	owedSince       time.Time
	wake            chan struct{}
	// A client that handed us its terminal (tty.go): the output goes to
	// tty, the socket carries ctl, frames queued behind that output.
	tty    *os.File
	ttyRaw syscall.RawConn
	keys   *os.File
	ctl    []byte
	// switchable: the client can move to another session (SWITCH_READY);
	// switched: it has been told to (SWITCH_TO). typed is
	// Daemon.typedSeq when its user last typed (on a terminal it handed
	// us, or in DATA) or it attached, which says which client a switch
	// request concerns (switch.go).
	switchable, switched bool
	typed                uint64

	// history is how many lines of scrollback (-1: all) the next
	// baseline writes first: the first after ATTACH or ATTACH_TTY, never
	// a resync or a flood's redraw. histWant is what HISTORY asked for.
	history, histWant int
	// due: a baseline with a long scrollback is to be rendered by the
	// writer (baseline.go); build is the one it renders, buildHeld the
	// memory that takes, and peekFlags what the PEEK that asked for it
	// asked (a repeat of it is answered by it).
	due       bool
	build     *build
	buildHeld int
	peekFlags byte
	// A large baseline's payload and what follows it, handed by
	// queueBuilt to the writer, which takes them at once with pending.
	big, after []byte
	// When the connection was accepted, and whether it has sent a frame:
	// an ended session waits a little for a new client's request.
	since time.Time
	spoke bool
}

func (d *Daemon) acceptLoop() {
	defer close(d.acceptDone)
	for {
		ln := d.ln.Load()
		conn, err := ln.accept()
		if err != nil {
			if err == errListenerClosed {
				if d.ln.Load() != ln {
					continue // republished: serve the new socket
				}
				return
			}
			if d.closing.Load() {
				// The socket is gone: serve who connected before.
				for {
					conn, ok := ln.acceptQueued()
					if !ok {
						return
					}
					d.serve(conn)
				}
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and friends: back off, keep serving
			continue
		}
		d.serve(conn)
	}
}

// selfUID is the daemon's uid, asked once rather than per connection.
var selfUID = os.Getuid()

// serve takes a new connection.
func (d *Daemon) serve(conn *os.File) {
	uid, err := peerUID(conn)
	if err != nil || !PeerAllowed(uid, selfUID) {
		conn.Close()
		return
	}
	c := &client{conn: conn, wake: make(chan struct{}, 1), drained: make(chan struct{}, 1), since: time.Now(), histWant: -1}
	c.raw, _ = conn.SyscallConn()
	d.mu.Lock()
	if d.clients == nil {
		d.mu.Unlock()
		conn.Close()
		return
	}
	if len(d.clients) >= MaxConns {
		d.mu.Unlock()
		d.refuse(c, "too many connections (the limit is "+strconv.Itoa(MaxConns)+"): close some clients of this session and retry")
		return
	}
	// After the session's end, a new connection's EXIT follows its
	// baseline (syncLocked), as the original sends it: sent now, it would
	// reach a client before the screen it asks for.
	d.clients[c] = struct{}{}
	d.mu.Unlock()
	go d.readLoop(c)
}

// wakeWriterLocked hands c's queue to its writer goroutine, starting it the
// first time.
func (d *Daemon) wakeWriterLocked(c *client) {
	if c.closed {
		return
	}
	if !c.writer {
		c.writer = true
		go d.writeLoop(c)
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// refuse tells a connection why it is not served and closes it. A client
// writes its request before it reads: closed at once, the connection
// would fail that write and the client would never see why. So the
// daemon shuts its side, then reads and discards for up to refuseLinger
// (a few connections at a time; any more are closed at once).
func (d *Daemon) refuse(c *client, why string) {
	writeNow(c.raw, proto.AppendFrame(nil, proto.Refused, []byte(why)))
	if d.lingering.Add(1) > maxLingering {
		d.lingering.Add(-1)
		c.conn.Close()
		return
	}
	c.raw.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_WR) })
	go func() {
		defer d.lingering.Add(-1)
		defer c.conn.Close()
		c.conn.SetReadDeadline(time.Now().Add(refuseLinger))
		var buf [512]byte
		for {
			if _, err := c.conn.Read(buf[:]); err != nil {
				return
			}
		}
	}()
}

// PeerAllowed is the socket's access rule: only the session owner's uid.
// The socket's mode already says so; this holds even if a parent
// directory's or the socket's mode is loosened by mistake.
func PeerAllowed(peer, self int) bool { return peer == self }

// enqueueLocked queues a frame for c and sends what it can at once (see
// flushLocked). It never blocks.
func (d *Daemon) enqueueLocked(c *client, t proto.Type, payload []byte) {
	d.queueLocked(c, t, payload)
	d.flushLocked(c)
}

// queueLocked appends a frame to c's queue. It never blocks.
// A queue that would pass MaxQueue is dropped and the client marked for a
// fresh baseline, which its writer takes when it is ready for more.
func (d *Daemon) queueLocked(c *client, t proto.Type, payload []byte) {
	if c.closed {
		return
	}
	defer d.recountLocked(c)
	if c.tty != nil {
		switch t {
		case proto.Data:
		case proto.Screen:
			if c.overflow {
				return
			}
			if c.drawn {
				c.pending = proto.RedrawInPlace(c.pending, payload, c.rows)
			} else {
				c.pending = proto.Redraw(c.pending, payload)
				c.drawn = true
			}
			return
		case proto.Geometry:
			return // the terminal knows its size
		default:
			c.ctl = proto.AppendFrame(c.ctl, t, payload)
			return
		}
	}
	if c.overflow || c.due {
		if t == proto.Status || t == proto.Exit {
			// Never dropped: sent after the coming baseline.
			c.ctl = proto.AppendFrame(c.ctl, t, payload)
		}
		return
	}
	if len(c.pending) > 0 && len(c.pending)+proto.HeaderLen+len(payload) > MaxQueue {
		if t == proto.Exit || t == proto.Status || !c.live {
			// EXIT and replies are never dropped; they are tiny, and
			// readLoop stops taking requests while replies wait.
			c.pending = c.appendOutLocked(c.pending, t, payload)
		} else {
			c.pending = nil
			c.overflow = true
			// The terminal has what was written before the queue.
			c.mark = min(c.mark, c.pendStart)
		}
	} else {
		c.pending = c.appendOutLocked(c.pending, t, payload)
	}
}

// appendOutLocked appends output for c: a frame, or for a terminal the bytes.
func (c *client) appendOutLocked(b []byte, t proto.Type, payload []byte) []byte {
	if c.tty != nil {
		return append(b, payload...)
	}
	return proto.AppendFrame(b, t, payload)
}

// flushLocked hands c's queue to its writer goroutine, except that when the
// writer holds nothing and the queue is small, it first makes one
// non-blocking attempt to write the queue itself: a keystroke's echo or a
// peek's screen then skips the writer's wake-up. The frames queued since
// the last flush go out in one write, so a client that reads a baseline
// also has the EXIT queued with it.
func (d *Daemon) flushLocked(c *client) {
	if c.closed || (len(c.pending) == 0 && len(c.ctl) == 0 && !c.overflow && !c.due) {
		return
	}
	if !c.busy && !c.overflow && !c.due && len(c.pending) <= directMax {
		out := c.raw
		if c.tty != nil {
			out = c.ttyRaw
		}
		c.pending = writeNow(out, c.pending)
		if len(c.pending) == 0 {
			// A terminal client's socket frames, behind its output.
			c.ctl = writeNow(c.raw, c.ctl)
		}
		if len(c.pending) == 0 && len(c.ctl) == 0 {
			return
		}
	}
	d.wakeWriterLocked(c)
}

// writeNow makes one non-blocking attempt to write b to out and returns
// what is left of it, moved to the front. It never waits, so a caller
// may hold d.mu.
func writeNow(out syscall.RawConn, b []byte) []byte {
	if len(b) == 0 || out == nil {
		return b
	}
	n := 0
	out.Write(func(fd uintptr) bool {
		var err error
		n, err = rawio.Write(int(fd), b)
		if err != nil {
			n = 0 // EAGAIN, or a failure the writer will meet too
		}
		return true // never wait: the caller holds d.mu
	})
	return b[:copy(b, b[n:])]
}

// writeLoop sends c's queue. It swaps the queue for a spare buffer under
// the lock and writes outside it, so the pump only ever appends to memory.
func (d *Daemon) writeLoop(c *client) {
	for range c.wake {
		d.mu.Lock()
		if c.closed {
			d.mu.Unlock()
			return
		}
		if c.overflow {
			c.overflow = false
			c.pending = c.pending[:0]
			if d.bigBaselineLocked(c) {
				d.deferBaselineLocked(c)
			} else {
				// Kept whole, as a baseline after a request is.
				c.live = false
				d.baselineLocked(c)
				c.live = true
			}
		}
		if c.due && !d.buildLocked(c) {
			d.mu.Unlock()
			return
		}
		buf, ctl, big, after := c.pending, c.ctl, c.big, c.after
		c.pending = c.spare[:0]
		c.spare, c.ctl, c.big, c.after = nil, nil, nil, nil
		c.busy = len(buf) > 0 || len(ctl) > 0 || len(big) > 0
		c.inflight = cap(buf) + cap(ctl) + len(big) + cap(after)
		c.inflightLen = len(buf) + len(ctl) + len(big) + len(after)
		d.recountLocked(c)
		var out io.Writer = c.conn
		if c.tty != nil {
			out = c.tty
		}
		d.mu.Unlock()
		if !c.busy {
			continue
		}
		var err error
		if len(buf) > 0 {
			_, err = out.Write(buf)
		}
		if err == nil && len(big) > 0 {
			_, err = out.Write(big)
			if err == nil {
				_, err = out.Write(after)
			}
		}
		if err == nil && len(ctl) > 0 {
			_, err = c.conn.Write(ctl)
		}
		d.mu.Lock()
		c.busy = false
		c.inflight, c.inflightLen = 0, 0
		// Keep a burst's buffer only if it is modest: an idle client
		// should cost almost nothing.
		if cap(buf) <= 256<<10 && !c.closed {
			c.spare = buf[:0]
		}
		if len(c.pending) == 0 && cap(c.pending) > 256<<10 {
			c.pending = nil
		}
		d.recountLocked(c)
		if !c.closed {
			select {
			case c.drained <- struct{}{}:
			default:
			}
		}
		d.mu.Unlock()
		if err != nil {
			d.drop(c)
			return
		}
	}
}

// drop forgets a client and renegotiates the size if it was a writer.
func (d *Daemon) drop(c *client) {
	d.mu.Lock()
	d.dropLocked(c)
	d.mu.Unlock()
}

// dropLocked is drop with d.mu held. What the client held no longer
// counts against the budget: closing the connection ends its writer's
// and its reader's waits, and with them the last references.
func (d *Daemon) dropLocked(c *client) {
	if !c.closed {
		c.closed = true
		// The terminal first: a client that sees the connection close
		// may then write to it (client.waitHanded).
		c.closeTTYLocked()
		c.conn.Close()
	}
	if _, ok := d.clients[c]; ok {
		delete(d.clients, c)
		if c.role == roleWritable {
			d.writers--
			d.renegotiateLocked()
		}
		c.pending, c.spare, c.ctl, c.big, c.after = nil, nil, nil, nil, nil
		close(c.wake)
		close(c.drained)
		d.freed += connGarbage
	}
	d.held -= c.held
	d.freed += c.held
	c.held = 0
	if d.freed >= releaseAfter {
		d.releaseLocked()
	}
}

// awaitRepliesLocked holds back c's next request while the replies to earlier
// ones wait to be read: a peer that asks without reading makes the daemon
// stop reading it, and its requests wait in the socket, not in memory.
// It lets go of d.mu while it waits; it returns false once c is gone.
func (d *Daemon) awaitRepliesLocked(c *client) bool {
	for !c.closed {
		backlog := len(c.ctl) + c.inflightLen
		if !c.live {
			backlog += len(c.pending)
		}
		if backlog <= maxReplies {
			return true
		}
		d.mu.Unlock()
		<-c.drained
		d.mu.Lock()
	}
	return false
}

func (d *Daemon) readLoop(c *client) {
	defer d.drop(c)
	// spoke (under d.mu, with the request's own change): the session's
	// end concerns this connection now, see finish. HISTORY only
	// prepares an ATTACH.
	input := func(p []byte) error {
		d.mu.Lock()
		c.spoke = true
		ro := c.role == roleReadonly
		if c.role == roleWritable && len(p) > 0 {
			d.typedLocked(c)
		}
		d.mu.Unlock()
		if ro || len(p) == 0 {
			return nil
		}
		return d.writeInput(p)
	}
	r := frameReader{
		data: input,
		stall: func(on bool) {
			if on {
				c.conn.SetReadDeadline(time.Now().Add(frameStall))
			} else {
				c.conn.SetReadDeadline(time.Time{})
			}
		},
	}
	fds := &fdReader{rc: c.raw}
	defer fds.closeAll()
	if c.raw != nil {
		r.r = fds
	} else {
		r.r = c.conn
	}
	// A peer that connects and says nothing is let go of: every client
	// sends its first frame at once.
	c.conn.SetReadDeadline(time.Now().Add(frameStall))
	for first := true; ; first = false {
		f, err := r.next()
		if err != nil {
			return // EOF, a broken or stalled frame, one over 32 MiB: drop the peer
		}
		if first {
			c.conn.SetReadDeadline(time.Time{})
		}
		switch f.Type {
		case proto.Data:
			if input(f.Payload) != nil {
				return
			}
		case proto.Attach:
			rows, cols, ok := parseSize(f.Payload)
			if !ok {
				continue
			}
			d.mu.Lock()
			if c.role != roleWritable {
				d.writers++
			}
			c.role, c.rows, c.cols, c.spoke = roleWritable, rows, cols, true
			d.typedLocked(c)
			d.requests++
			c.seq = d.requests
			c.history = c.histWant
			d.syncLocked(c)
			d.seenLocked()
			d.mu.Unlock()
		case proto.AttachTTY, proto.AttachTTYKey:
			d.attachTTY(c, f.Type, f.Payload, fds.take())
		case proto.SwitchReady, proto.Switch:
			if !d.switchFrame(c, f) {
				return
			}
		case proto.Peek:
			flags := proto.ParsePeek(f.Payload)
			d.mu.Lock()
			c.spoke = true
			if coalescedLocked(c, flags) {
				d.mu.Unlock()
				continue
			}
			if c.role == roleWritable {
				d.writers--
			}
			c.role, c.flags = roleReadonly, flags
			c.history = 0
			if flags&proto.PeekRedraw != 0 && flags&proto.PeekFull != 0 {
				// A reader that keeps its own emulator (pty web) takes
				// the scrollback first, as ATTACH does.
				c.history = c.histWant
			}
			d.syncLocked(c)
			if flags&proto.PeekFollow != 0 {
				d.seenLocked() // a follower watches: attach -R, peek -f, pty web
			}
			d.mu.Unlock()
		case proto.History:
			if n, ok := proto.ParseHistory(f.Payload); ok {
				d.mu.Lock()
				c.histWant = n
				d.mu.Unlock()
			}
		case proto.Resize:
			rows, cols, ok := parseSize(f.Payload)
			if !ok {
				continue
			}
			d.mu.Lock()
			if c.role == roleWritable {
				c.rows, c.cols = rows, cols
				d.requests++
				c.seq = d.requests
				d.renegotiateLocked()
			} else {
				// A follower's terminal, which its redraws fill; it
				// constrains nothing. Sent before the PEEK, it is
				// known to that PEEK's baseline too, whose history
				// must scroll the whole terminal (attach -R).
				c.rows, c.cols = rows, cols
			}
			d.mu.Unlock()
		case proto.Detach:
			return
		case proto.Status:
			d.mu.Lock()
			c.spoke = true
			ok := d.awaitRepliesLocked(c)
			d.mu.Unlock()
			if !ok {
				return
			}
			b := d.status()
			d.mu.Lock()
			d.enqueueLocked(c, proto.Status, b)
			d.mu.Unlock()
		default:
			// Unknown types are ignored, for newer clients.
		}
	}
}

// parseSize decodes the size a client asks for, clamped to what a session
// may be (docs/protocol.md, Geometry); ok is false for a payload too short
// or with a zero dimension, which is ignored.
func parseSize(p []byte) (rows, cols int, ok bool) {
	rows, cols, ok = proto.ParseSize(p)
	if !ok {
		return 0, 0, false
	}
	rows, cols = proto.ClampSize(rows, cols)
	return rows, cols, true
}

// syncLocked (re)starts c's stream after ATTACH or PEEK: renegotiate the size,
// drop whatever was queued for its previous role, then GEOMETRY and the
// baseline, and from now on live output. All of it under d.mu, so no pump
// chunk falls between the baseline and the live stream or lands in both.
func (d *Daemon) syncLocked(c *client) {
	// Not live while the size is renegotiated: c gets its GEOMETRY once,
	// in front of its baseline, not also as the change's broadcast.
	c.live = false
	d.renegotiateLocked()
	c.pending = c.pending[:0]
	c.overflow = false
	c.drawn = false // a new request: its baseline is drawn afresh
	if d.bigBaselineLocked(c) {
		c.peekFlags = c.flags
		d.deferBaselineLocked(c)
		if d.exited {
			d.queueLocked(c, proto.Exit, proto.ExitCode(d.exitCode)) // behind the baseline
		}
		return
	}
	c.build = nil // a larger one being rendered is superseded
	c.due = false
	c.live = false // a baseline past MaxQueue is kept whole
	c.drawn = false
	d.baselineLocked(c)
	c.history = 0
	c.live = true
	c.stale, c.missed, c.owing = false, false, false
	c.drawn = true
	c.mark = d.screen.HistorySeq()
	if d.exited {
		d.queueLocked(c, proto.Exit, proto.ExitCode(d.exitCode))
	}
	d.flushLocked(c)
}

// renegotiateLocked applies the geometry rule: rows and cols are each the
// minimum over writable clients; with none, the size stays.
func (d *Daemon) renegotiateLocked() {
	if d.writers == 0 {
		d.fitProcsLocked(false)
	}
	rows, cols := 0, 0
	for c := range d.clients {
		if c.role != roleWritable || c.closed {
			continue
		}
		if rows == 0 || c.rows < rows {
			rows = c.rows
		}
		if cols == 0 || c.cols < cols {
			cols = c.cols
		}
	}
	if rows == 0 || cols == 0 || (rows == d.rows && cols == d.cols) {
		return
	}
	d.rows, d.cols = rows, cols
	if !d.exited {
		setSize(d.ptmx, rows, cols)
	}
	d.screen.Resize(rows, cols)
	d.screenGen++
	d.shared = nil
	for o := range d.clients {
		if o.live {
			d.enqueueLocked(o, proto.Geometry, proto.Size(rows, cols))
		}
	}
}

// trimClients drops the output buffers that idle clients kept from the
// burst (up to 256 KiB each), so an attached but quiet session costs
// little; the next output allocates afresh.
func (d *Daemon) trimClients() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for c := range d.clients {
		if !c.busy && len(c.pending) == 0 && len(c.ctl) == 0 {
			c.pending, c.spare, c.ctl = nil, nil, nil
			d.recountLocked(c)
		}
	}
}
