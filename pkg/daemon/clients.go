package daemon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/layout"
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
const (
	MaxHeld      = 64 << 20
	MaxConns     = 256
	maxReplies   = 64 << 10
	releaseAfter = 1 << 20
	maxLingering = 16
	refuseLinger = time.Second
)

func (d *Daemon) acceptLoop() {
	defer close(d.acceptDone)
	for {
		conn, err := d.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if d.closing.Load() {
				// The socket is gone: serve who connected before.
				for {
					conn, ok := acceptQueued(d.ln)
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

// serve takes a new connection.
func (d *Daemon) serve(conn *net.UnixConn) {
	uid, err := peerUID(conn)
	if err != nil || !PeerAllowed(uid, os.Getuid()) {
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
	// baseline (sync), as the original sends it: sent now, it would
	// reach a client before the screen it asks for.
	d.clients[c] = struct{}{}
	d.mu.Unlock()
	go d.writeLoop(c)
	go d.readLoop(c)
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

// enqueue queues a frame for c and sends what it can at once (see
// flush). Called under d.mu; never blocks.
func (d *Daemon) enqueue(c *client, t proto.Type, payload []byte) {
	d.queue(c, t, payload)
	d.flush(c)
}

// queue appends a frame to c's queue. Called under d.mu; never blocks.
// A queue that would pass MaxQueue is dropped and the client marked for a
// fresh baseline, which its writer takes when it is ready for more.
func (d *Daemon) queue(c *client, t proto.Type, payload []byte) {
	if c.closed {
		return
	}
	defer d.recount(c)
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
			c.pending = c.appendOut(c.pending, t, payload)
		} else {
			c.pending = nil
			c.overflow = true
			// The terminal has what was written before the queue.
			c.mark = min(c.mark, c.pendStart)
		}
	} else {
		c.pending = c.appendOut(c.pending, t, payload)
	}
}

// appendOut appends output for c: a frame, or for a terminal the bytes.
func (c *client) appendOut(b []byte, t proto.Type, payload []byte) []byte {
	if c.tty != nil {
		return append(b, payload...)
	}
	return proto.AppendFrame(b, t, payload)
}

// flush hands c's queue to its writer goroutine, except that when the
// writer holds nothing and the queue is small, it first makes one
// non-blocking attempt to write the queue itself: a keystroke's echo or a
// peek's screen then skips the writer's wake-up. The frames queued since
// the last flush go out in one write, so a client that reads a baseline
// also has the EXIT queued with it. Called under d.mu.
func (d *Daemon) flush(c *client) {
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
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeNow makes one non-blocking attempt to write b to out and returns
// what is left of it, moved to the front. Called under d.mu.
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

// baseline appends GEOMETRY and SCREEN for c's role. Called under d.mu.
func (d *Daemon) baseline(c *client) {
	d.queue(c, proto.Geometry, proto.Size(d.rows, d.cols))
	d.queue(c, proto.Screen, d.screenFor(c))
}

func (d *Daemon) screenFor(c *client) []byte {
	if c.drawn && (c.role == roleWritable || c.flags&proto.PeekFollow != 0) {
		return d.redrawFor(c, true)
	}
	if c.role == roleWritable && c.history != 0 {
		// The scrollback first, into the terminal's own scrollback (as
		// the original's SCREEN carries it), within what a client of
		// either kind reads in one frame.
		redraw := d.screen.Redraw()
		b := d.screen.AppendHistory(nil, c.history, c.rows, proto.MaxPayload-len(redraw))
		return append(b, redraw...)
	}
	if c.role == roleWritable || c.flags&proto.PeekRedraw != 0 {
		return d.screen.Redraw()
	}
	full := c.flags&proto.PeekFull != 0
	// No trailing blank lines, as the original daemon sends it: its
	// clients (peek, peek --wait) print the payload as is, and a screen
	// with three lines of output should not print twenty blank ones.
	if c.flags&proto.PeekPlain != 0 {
		return lastLines([]byte(strings.TrimRight(d.screen.PlainText(full), "\n")), proto.MaxPayload)
	}
	var tail []byte
	if c.flags&proto.PeekFollow != 0 {
		tail = d.screen.AppendStreamState(nil)
	}
	return append(d.peekANSI(full, len(tail)), tail...)
}

// redrawFor is the SCREEN of a client that already shows the session:
// with catchUp, first the scrollback lines its terminal lacks (or a
// marker for those the session no longer keeps), from the top of the
// screen its client has erased, scrolled off, then the screen as the
// client's role draws it. Called under d.mu.
func (d *Daemon) redrawFor(c *client, catchUp bool) []byte {
	var screen []byte
	if c.role == roleWritable {
		screen = d.screen.Redraw()
	} else {
		// The viewport alone: a follower's scrollback came with its
		// first baseline, and the rest comes before this.
		tail := d.screen.AppendStreamState(nil)
		screen = append(d.peekANSI(false, len(tail)), tail...)
	}
	if !catchUp {
		return screen
	}
	rows := c.rows
	if rows <= 0 {
		rows = d.rows // a reader that never said its size
	}
	c.mark = min(c.mark, d.screen.HistorySeq())
	b := d.screen.AppendHistorySince(nil, c.mark, rows, proto.MaxPayload-len(screen)-8)
	c.mark = d.screen.HistorySeq()
	if len(b) > 0 {
		b = append(b, "\x1b[H"...) // where the screen is drawn from
	}
	return append(b, screen...)
}

// peekANSI is the text form of a read-only baseline as the original's
// (xterm's serializer) is: lines separated by CR LF, so that it draws the
// same on a terminal in raw mode (peek -f) as in a file, and ending with a
// move to the program's cursor, so that the live output which follows
// lands where it would have. The move is relative (line feeds down, CUU
// up, then CR and CUF), since a reader draws the text from the top of a
// cleared screen whose size may not be the session's. pty peek leaves the
// move out when it prints (client.PeekText). reserve is room kept in the
// frame for what a follower gets after the move (PeekFollow).
func (d *Daemon) peekANSI(full bool, reserve int) []byte {
	b, last := d.screen.PeekANSI(full, proto.MaxPayload-32-reserve)
	y, x, _ := d.screen.Cursor()
	if full {
		y += d.screen.ScrollbackLen()
	}
	return appendCursorMove(b, y-last, x)
}

// appendCursorMove moves dy rows (down by line feeds, which scroll if
// need be) and to column x.
func appendCursorMove(b []byte, dy, x int) []byte {
	for ; dy > 0; dy-- {
		b = append(b, '\n')
	}
	if dy < 0 {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(-dy), 10)
		b = append(b, 'A')
	}
	b = append(b, '\r')
	if x > 0 {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, 'C')
	}
	return b
}

// lastLines is the end of b, whole lines of it, within max bytes: a peek
// of a long and colourful scrollback (hundreds of megabytes at 1000
// columns) is cut to its most recent part, so that it fits in a frame
// every client can read.
func lastLines(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	cut := b[len(b)-max:]
	if i := bytes.IndexByte(cut, '\n'); i >= 0 {
		cut = cut[i+1:]
	}
	return cut
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
			if d.bigBaseline(c) {
				d.deferBaseline(c)
			} else {
				// Kept whole, as a baseline after a request is.
				c.live = false
				d.baseline(c)
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
		d.recount(c)
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
		d.recount(c)
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

// dropLocked is drop, called under d.mu. What the client held no longer
// counts against the budget: closing the connection ends its writer's
// and its reader's waits, and with them the last references.
func (d *Daemon) dropLocked(c *client) {
	if !c.closed {
		c.closed = true
		// The terminal first: a client that sees the connection close
		// may then write to it (client.waitHanded).
		c.closeTTY()
		c.conn.Close()
	}
	if _, ok := d.clients[c]; ok {
		delete(d.clients, c)
		if c.role == roleWritable {
			d.writers--
			d.renegotiate()
		}
		c.pending, c.spare, c.ctl, c.big, c.after = nil, nil, nil, nil, nil
		close(c.wake)
		close(c.drained)
	}
	d.held -= c.held
	d.freed += c.held
	c.held = 0
	if d.freed >= releaseAfter {
		d.release()
	}
}

// recount brings c's share of the memory budget up to date after its
// buffers changed, and sheds load once the daemon holds more than
// MaxHeld. Called under d.mu.
func (d *Daemon) recount(c *client) {
	if c.closed {
		return
	}
	n := cap(c.pending) + cap(c.spare) + cap(c.ctl) + c.inflight + c.buildHeld
	d.held += n - c.held
	c.held = n
	if d.held > MaxHeld {
		d.shed()
	}
}

// shed brings the output the daemon holds for its clients back under
// the budget, worst holder first: a live client whose queue is most of
// what it holds loses the queue and gets a fresh baseline when it next
// can take one (as one over MaxQueue does); any other, whose memory is in
// a write the peer does not take (or in replies it does not read), is
// disconnected. Called under d.mu.
func (d *Daemon) shed() {
	if d.shedding {
		return // dropping a writer renegotiates, which queues
	}
	d.shedding = true
	defer func() { d.shedding = false }()
	freed := 0
	for d.held > MaxHeld*3/4 {
		var worst *client
		for o := range d.clients {
			if !o.closed && (worst == nil || o.held > worst.held) {
				worst = o
			}
		}
		if worst == nil || worst.held == 0 {
			break
		}
		before := d.held
		queued := cap(worst.pending) + cap(worst.spare)
		if len(worst.pending) == 0 && queued > 0 {
			// Only buffers kept for the next burst.
			worst.pending, worst.spare = nil, nil
			d.recount(worst)
		} else if worst.live && queued >= worst.held/2 {
			worst.pending, worst.spare = nil, nil
			worst.overflow = true
			d.recount(worst)
			select {
			case worst.wake <- struct{}{}:
			default:
			}
		} else {
			d.dropLocked(worst)
		}
		freed += before - d.held
	}
	d.freed += freed
	if d.freed >= releaseAfter {
		d.release()
	}
}

// release hands memory freed by shedding or by clients leaving (d.freed
// bytes of it so far) back to the system soon, at most once a second: the
// runtime would keep it for a while otherwise, and a daemon lives long.
// Called under d.mu.
func (d *Daemon) release() {
	if d.releasing {
		return
	}
	d.releasing = true
	wait := time.Until(d.released.Add(time.Second))
	time.AfterFunc(max(wait, 100*time.Millisecond), func() {
		d.mu.Lock()
		d.releasing, d.freed, d.released = false, 0, time.Now()
		d.mu.Unlock()
		debug.FreeOSMemory()
	})
}

// awaitReplies holds back c's next request while the replies to earlier
// ones wait to be read: a peer that asks without reading makes the daemon
// stop reading it, and its requests wait in the socket, not in memory.
// Called under d.mu; returns false once c is gone.
func (d *Daemon) awaitReplies(c *client) bool {
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
			c.history = c.histWant
			d.sync(c)
			d.mu.Unlock()
			select {
			case d.attached <- struct{}{}:
			default:
			}
		case proto.AttachTTY, proto.AttachTTYKey:
			d.attachTTY(c, f.Type, f.Payload, fds.take())
		case proto.Peek:
			var flags byte
			if len(f.Payload) > 0 {
				flags = f.Payload[0]
			}
			d.mu.Lock()
			c.spoke = true
			if coalesced(c, flags) {
				d.mu.Unlock()
				continue
			}
			if c.role == roleWritable {
				d.writers--
			}
			c.role, c.flags = roleReadonly, flags
			d.sync(c)
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
				d.renegotiate()
			} else if c.role == roleReadonly {
				// A follower's terminal, which its redraws fill; it
				// constrains nothing.
				c.rows, c.cols = rows, cols
			}
			d.mu.Unlock()
		case proto.Detach:
			return
		case proto.Status:
			d.mu.Lock()
			c.spoke = true
			ok := d.awaitReplies(c)
			d.mu.Unlock()
			if !ok {
				return
			}
			b := d.status()
			d.mu.Lock()
			d.enqueue(c, proto.Status, b)
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

// sync (re)starts c's stream after ATTACH or PEEK: renegotiate the size,
// drop whatever was queued for its previous role, then GEOMETRY and the
// baseline, and from now on live output. All of it under d.mu, so no pump
// chunk falls between the baseline and the live stream or lands in both.
func (d *Daemon) sync(c *client) {
	d.renegotiate()
	c.pending = c.pending[:0]
	c.overflow = false
	c.drawn = false // a new request: its baseline is drawn afresh
	if d.bigBaseline(c) {
		c.peekFlags = c.flags
		d.deferBaseline(c)
		if d.exited {
			d.queue(c, proto.Exit, proto.ExitCode(d.exitCode)) // behind the baseline
		}
		return
	}
	c.build = nil // a larger one being rendered is superseded
	c.due = false
	c.live = false // a baseline past MaxQueue is kept whole
	c.drawn = false
	d.baseline(c)
	c.history = 0
	c.live = true
	c.stale, c.missed, c.owing = false, false, false
	c.drawn = true
	c.mark = d.screen.HistorySeq()
	if d.exited {
		d.queue(c, proto.Exit, proto.ExitCode(d.exitCode))
	}
	d.flush(c)
}

// renegotiate applies the geometry rule: rows and cols are each the
// minimum over writable clients; with none, the size stays. Called under
// d.mu.
func (d *Daemon) renegotiate() {
	if d.writers == 0 {
		d.fitProcs(false)
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
			d.enqueue(o, proto.Geometry, proto.Size(rows, cols))
		}
	}
}

// StatusReply is the STATUS frame's JSON.
type StatusReply struct {
	Name     string         `json:"name"`
	Terminal StatusTerminal `json:"terminal"`
	Process  StatusProcess  `json:"process"`
	Daemon   StatusDaemon   `json:"daemon"`
	Clients  StatusClients  `json:"clients"`
	Modes    StatusModes    `json:"modes"`
	Uptime   float64        `json:"uptimeSeconds"`
	Created  string         `json:"createdAt"`
}

type StatusTerminal struct {
	Cols               int `json:"cols"`
	Rows               int `json:"rows"`
	CursorX            int `json:"cursorX"`
	CursorY            int `json:"cursorY"`
	ScrollbackUsed     int `json:"scrollbackUsed"`
	ScrollbackCapacity int `json:"scrollbackCapacity"`
}

type StatusProcess struct {
	Alive     bool       `json:"alive"`
	ExitCode  *int       `json:"exitCode"`
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

type StatusDaemon struct {
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

// Resources is a process's memory and CPU use; nil where unavailable.
type Resources struct {
	RssKb      int64   `json:"rssKb"`
	CPUPercent float64 `json:"cpuPercent"`
}

type StatusClients struct {
	Total       int          `json:"total"`
	Attached    int          `json:"attached"`
	ReadOnly    int          `json:"readOnly"`
	Connections []StatusConn `json:"connections"`
}

type StatusConn struct {
	Role string `json:"role"`
	Rows int    `json:"rows,omitempty"`
	Cols int    `json:"cols,omitempty"`
}

type StatusModes struct {
	SGRMouse      bool `json:"sgrMouse"`
	CursorHidden  bool `json:"cursorHidden"`
	KittyKeyboard bool `json:"kittyKeyboard"`
	// KittyKeyboardFlags is a stack, as the original sends it (its stats
	// joins it); ours holds the flags in effect, or nothing.
	KittyKeyboardFlags []int `json:"kittyKeyboardFlags"`
	// Ours only (the original's clients ignore fields they do not know):
	// the modes that change what keys send, so that pty send types an
	// arrow as the program expects it.
	ApplicationCursor bool `json:"applicationCursor"`
	ApplicationKeypad bool `json:"applicationKeypad"`
}

func (d *Daemon) status() []byte {
	var s StatusReply
	s.Name = d.id
	if m, err := layout.At(d.root).Metadata(d.id); err == nil {
		s.Name = m.Name(d.id)
	}
	d.mu.Lock()
	rows, cols := d.screen.Size()
	y, x, _ := d.screen.Cursor()
	s.Terminal = StatusTerminal{Cols: cols, Rows: rows, CursorX: x, CursorY: y,
		// Used counts the viewport's rows too, as the original does, so it
		// reaches the capacity (rows + scrollback) when history is full.
		ScrollbackUsed: d.screen.ScrollbackLen() + rows, ScrollbackCapacity: rows + d.cfg.ScrollbackLines()}
	md := d.screen.Modes()
	s.Modes = StatusModes{SGRMouse: md.MouseSGR1006, CursorHidden: md.CursorHidden,
		KittyKeyboard: md.KittyKeyboardFlags != 0, KittyKeyboardFlags: []int{},
		ApplicationCursor: md.AppCursor, ApplicationKeypad: md.AppKeypad}
	if md.KittyKeyboardFlags != 0 {
		s.Modes.KittyKeyboardFlags = []int{md.KittyKeyboardFlags}
	}
	s.Clients.Connections = []StatusConn{}
	for c := range d.clients {
		switch c.role {
		case roleWritable:
			s.Clients.Attached++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "writable", Rows: c.rows, Cols: c.cols})
		case roleReadonly:
			s.Clients.ReadOnly++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "readonly"})
		}
	}
	s.Clients.Total = len(d.clients)
	exited, code := d.exited, d.exitCode
	d.mu.Unlock()
	s.Process.Pid = d.child.Pid
	s.Process.Alive = !exited
	if exited {
		s.Process.ExitCode = &code
	} else {
		s.Process.Resources = resourcesOf(d.child.Pid)
	}
	s.Daemon = StatusDaemon{Pid: os.Getpid(), Resources: resourcesOf(os.Getpid())}
	s.Uptime = float64(int64(time.Since(d.started).Seconds())) // whole seconds, as the original
	s.Created = d.created
	b, _ := s.appendJSON(nil)
	return b
}

// Limits on what a client sends (docs/protocol.md, Limits). Client frames
// carry keystrokes, pastes and 4-byte requests, so the daemon never holds
// more than wholeData of a peer's frame: a larger DATA frame (the
// original's pty send puts a whole argument in one) is passed to the
// child in pieces as it arrives, and of any other frame only the first
// ctlMax bytes are kept, the rest skipped.
const (
	wholeData  = 64 << 10
	ctlMax     = 64
	frameStall = 30 * time.Second // a frame's bytes must keep coming
	skipBuf    = 16 << 10
)

// frameReader decodes client frames from the socket. Clients send few,
// small frames, so it keeps only a small buffer (proto.Reader keeps 64 KiB
// per connection): enough that a keystroke's frame, header and payload,
// takes one read. Whatever a peer sends, a call allocates at most
// wholeData bytes.
type frameReader struct {
	r        io.Reader
	buf      [64]byte
	off, end int
	// data takes the payload of a DATA frame over wholeData, piece by
	// piece; the frame is then returned without a payload. Without it,
	// such payloads are skipped.
	data func([]byte) error
	// stall, when set, is called with true when the reader must wait for
	// the rest of a frame it has begun, and with false once the frame is
	// complete: the caller bounds how long a frame may take.
	stall   func(bool)
	stalled bool
}

// read fills the buffer from the stream. inFrame says a frame has begun.
func (fr *frameReader) read(inFrame bool) (int, error) {
	if inFrame && !fr.stalled && fr.stall != nil {
		fr.stalled = true
		fr.stall(true)
	}
	if fr.off > 0 {
		fr.end = copy(fr.buf[:], fr.buf[fr.off:fr.end])
		fr.off = 0
	}
	n, err := fr.r.Read(fr.buf[fr.end:])
	fr.end += n
	return n, err
}

// take moves up to len(p) buffered bytes into p (nil p: discards them)
// and returns how many.
func (fr *frameReader) take(p []byte, max int) int {
	k := min(max, fr.end-fr.off)
	if p != nil {
		copy(p, fr.buf[fr.off:fr.off+k])
	}
	fr.off += k
	if fr.off == fr.end {
		fr.off, fr.end = 0, 0
	}
	return k
}

// fill reads the next n payload bytes into p[:n], or past them when p
// is nil: from the buffer first, then, for more than the buffer holds,
// straight from the stream.
func (fr *frameReader) fill(p []byte, n int) error {
	var skip []byte
	for n > 0 {
		if fr.end > fr.off {
			var dst []byte
			if p != nil {
				dst = p
			}
			k := fr.take(dst, n)
			if p != nil {
				p = p[k:]
			}
			n -= k
			continue
		}
		if p != nil && n >= len(fr.buf) {
			if fr.stall != nil && !fr.stalled {
				fr.stalled = true
				fr.stall(true)
			}
			k, err := fr.r.Read(p[:n])
			p, n = p[k:], n-k
			if err != nil && n > 0 {
				return io.ErrUnexpectedEOF
			}
			continue
		}
		if p == nil && n >= len(fr.buf) {
			// Skipping: in reads of a useful size, into memory that
			// is let go of with the frame.
			if fr.stall != nil && !fr.stalled {
				fr.stalled = true
				fr.stall(true)
			}
			if skip == nil {
				skip = make([]byte, min(n, skipBuf))
			}
			k, err := fr.r.Read(skip[:min(n, len(skip))])
			n -= k
			if err != nil && n > 0 {
				return io.ErrUnexpectedEOF
			}
			continue
		}
		if _, err := fr.read(true); err != nil && fr.end == fr.off {
			return io.ErrUnexpectedEOF
		}
	}
	return nil
}

func (fr *frameReader) next() (proto.Frame, error) {
	f, err := fr.frame()
	if fr.stalled {
		fr.stalled = false
		if err == nil {
			fr.stall(false)
		}
	}
	return f, err
}

func (fr *frameReader) frame() (proto.Frame, error) {
	for fr.end-fr.off < proto.HeaderLen {
		_, err := fr.read(fr.end > fr.off)
		if err != nil && fr.end-fr.off < proto.HeaderLen {
			if fr.end > fr.off && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return proto.Frame{}, err
		}
	}
	hdr := fr.buf[fr.off : fr.off+proto.HeaderLen]
	t := proto.Type(hdr[0])
	n := int(binary.BigEndian.Uint32(hdr[1:]))
	fr.off += proto.HeaderLen
	if n > proto.MaxPayload {
		return proto.Frame{}, proto.ErrTooLarge
	}
	switch {
	case t != proto.Data:
		p := make([]byte, min(n, ctlMax))
		if err := fr.fill(p, len(p)); err != nil {
			return proto.Frame{}, err
		}
		if err := fr.fill(nil, n-len(p)); err != nil {
			return proto.Frame{}, err
		}
		return proto.Frame{Type: t, Payload: p}, nil
	case n <= wholeData:
		p := make([]byte, n)
		if err := fr.fill(p, n); err != nil {
			return proto.Frame{}, err
		}
		return proto.Frame{Type: t, Payload: p}, nil
	}
	piece := make([]byte, wholeData)
	for n > 0 {
		k := min(n, len(piece))
		if err := fr.fill(piece, k); err != nil {
			return proto.Frame{}, err
		}
		n -= k
		if fr.data != nil {
			if err := fr.data(piece[:k]); err != nil {
				return proto.Frame{}, err
			}
		}
	}
	return proto.Frame{Type: t}, nil
}
