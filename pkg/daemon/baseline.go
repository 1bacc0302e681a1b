package daemon

import (
	"bytes"
	"runtime"

	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// A baseline with a long scrollback (a peek --full, an ATTACH with its
// history) takes far longer to render than anything else the daemon does
// under d.mu. So it is not rendered by the request: the request marks it
// due (client.due) and the connection's writer renders it when it is
// ready to send, a slice at a time, letting go of d.mu in between, so
// that the output path, STATUS and other clients go on meanwhile. The
// baseline is the screen as it was when the rendering began (term's
// HistMark names the scrollback lines of that moment), and the output
// that arrives during the rendering is queued behind it as usual. One
// such rendering runs at a time (Daemon.gate): each is bounded, and they
// cannot crowd the processor or memory together.
//
// A request whose answer is still due or being rendered (the same PEEK
// again) is already answered by it; a connection that reads nothing
// therefore costs one rendering, however many requests it sends.
const (
	// bigScrollback is the scrollback, in lines, from which a baseline
	// that includes it is rendered by the writer in slices.
	bigScrollback = 256
	// buildSlice is how much of a baseline is rendered per hold of d.mu.
	buildSlice = 128 << 10
)

// Kinds of baseline a build renders.
const (
	buildPeekANSI = iota
	buildPeekPlain
	buildHistory
)

// build is a baseline being rendered; all of it is guarded by d.mu.
type build struct {
	kind       int
	gen        uint64 // d.screenGen at the start
	flags      byte   // of a read-only connection: what it asked for
	rows, cols int    // the session's size at the start
	mark       term.HistMark
	next, stop int // scrollback lines still to render: next down to stop
	budget     int // bytes of lines that fit
	size       int
	done       bool
	arena      []byte // rendered lines, newest first
	ends       []int  // end of each line in arena
	// The part rendered at the start: the screen (PEEK, ANSI or plain;
	// the redraw of an ATTACH), and for an ANSI peek the cursor move's
	// inputs and a follower's tail.
	screen   []byte
	hasLast  bool // a non-blank line has been met (PEEK)
	last     int  // its row, counted from the oldest scrollback line
	y, x     int
	tail     []byte
	histRows int
	before   []byte // what was queued for the connection before the start
}

// sharedBaseline is the last large baseline rendered, for as long as the
// screen has not changed since.
type sharedBaseline struct {
	gen     uint64
	key     buildKey
	payload []byte
}

// buildKey is what a large baseline depends on besides the screen.
type buildKey struct {
	role       int
	flags      byte
	history    int // ATTACH: lines asked for
	rows       int // ATTACH: the client's rows
	rows0, col int // the session's size
}

func (d *Daemon) keyOfLocked(c *client) buildKey {
	k := buildKey{role: c.role, rows0: d.rows, col: d.cols}
	if c.role != roleWritable {
		k.flags = c.flags
	}
	if c.role == roleWritable || c.flags&proto.PeekRedraw != 0 {
		k.history, k.rows = c.history, c.termRowsLocked(d)
	}
	return k
}

// bigBaselineLocked reports whether c's next baseline includes a scrollback
// long enough to be rendered in slices.
func (d *Daemon) bigBaselineLocked(c *client) bool {
	if d.screen.ScrollbackLen() < bigScrollback {
		return false
	}
	if c.role == roleWritable || c.flags&proto.PeekRedraw != 0 {
		return c.history != 0
	}
	return c.role == roleReadonly && c.flags&proto.PeekRedraw == 0 && c.flags&proto.PeekFull != 0
}

// deferBaselineLocked marks c's baseline due, for its writer to render: until
// then c receives no output (the baseline will show it) and its replies
// wait behind the baseline.
func (d *Daemon) deferBaselineLocked(c *client) {
	c.due = true
	c.live = false
	c.stale = false
	c.build = nil // one being rendered is for a request superseded now
	d.wakeWriterLocked(c)
}

// coalescedLocked reports whether c's PEEK asks for what its baseline that is
// due or being rendered answers.
func coalescedLocked(c *client, flags byte) bool {
	if c.role != roleReadonly || c.peekFlags != flags {
		return false
	}
	return c.due || c.build != nil
}

// buildLocked renders c's due baseline and queues it, with what was
// queued before it and the output that arrived meanwhile behind it. It
// lets go of d.mu while it waits for its turn and between slices; it
// returns false once c is gone.
func (d *Daemon) buildLocked(c *client) bool {
	for c.due {
		select {
		case d.gate <- struct{}{}:
		default:
			d.mu.Unlock()
			d.gate <- struct{}{}
			d.mu.Lock()
		}
		ok := d.buildOnceLocked(c)
		<-d.gate
		if !ok {
			return false
		}
	}
	return !c.closed
}

func (d *Daemon) buildOnceLocked(c *client) bool {
	if c.closed {
		return false
	}
	if !c.due {
		return true
	}
	c.due = false
	if !d.bigBaselineLocked(c) {
		// The scrollback shrank meanwhile (cleared): rendered at once.
		ov := c.overflow
		c.overflow = false
		d.baselineLocked(c)
		c.overflow = ov
		c.history = 0
		c.live = true
		c.drawn, c.mark = true, d.screen.HistorySeq()
		if c.tty == nil {
			c.pending = append(c.pending, c.ctl...)
			c.ctl = c.ctl[:0]
		}
		return true
	}
	key := d.keyOfLocked(c)
	if sh := d.shared; sh != nil && sh.gen == d.screenGen && sh.key == key {
		c.history = 0
		d.queueBuiltLocked(c, c.pending, nil, proto.Size(d.rows, d.cols), sh.payload)
		c.drawn, c.mark = true, d.screen.HistorySeq()
		return true
	}
	b := d.startBuildLocked(c)
	c.build = b
	// The terminal will hold the scrollback as it is now; what scrolls
	// off later comes with the output, or with a redraw's catch-up.
	c.drawn, c.mark = true, d.screen.HistorySeq()
	// Output from now on is queued behind the baseline, and nothing of
	// it goes out before: the writer is busy.
	b.before, c.pending = c.pending, nil
	c.live, c.busy = true, true
	for !b.done {
		d.stepBuildLocked(b)
		c.buildHeld = cap(b.arena) + cap(b.screen)
		d.recountLocked(c)
		d.mu.Unlock()
		runtime.Gosched() // the waiting get d.mu first
		d.mu.Lock()
		if c.closed {
			return false
		}
		if c.build != b {
			// Superseded by another request (see deferBaselineLocked),
			// which dropped the queue.
			c.busy, c.buildHeld = false, 0
			d.recountLocked(c)
			return true
		}
	}
	c.build = nil
	c.busy = false
	payload := d.finishBuildLocked(b)
	c.buildHeld = 0
	if d.screenGen == b.gen {
		d.shared = &sharedBaseline{gen: b.gen, key: key, payload: payload}
	}
	d.queueBuiltLocked(c, b.before, c.pending, proto.Size(b.rows, b.cols), payload)
	return true
}

// queueBuiltLocked hands c's writer, which calls it, a large baseline: what
// was queued before it (before), GEOMETRY and the SCREEN frame's header
// (c.pending), the payload itself (c.big, not copied: it may be shared),
// then the replies held back behind it and the output that arrived since
// it was begun (c.after).
func (d *Daemon) queueBuiltLocked(c *client, before, rest, geom, payload []byte) {
	c.pending = before
	var after []byte
	if c.tty != nil {
		redraw := proto.Redraw(nil, nil)
		end := len(redraw) - len("\x1b[?2026l")
		c.pending = append(c.pending, redraw[:end]...)
		after = append(after, redraw[end:]...)
	} else {
		c.pending = proto.AppendFrame(c.pending, proto.Geometry, geom)
		c.pending = proto.AppendHeader(c.pending, proto.Screen, len(payload))
		// The replies held back behind the baseline (see queueLocked), in
		// the same write as it.
		after = append(after, c.ctl...)
		c.ctl = c.ctl[:0]
	}
	c.big, c.after = payload, append(after, rest...)
	c.live = true
}

// startBuildLocked renders the screen part of c's baseline and marks the
// scrollback whose lines stepBuild renders.
func (d *Daemon) startBuildLocked(c *client) *build {
	b := &build{rows: d.rows, cols: d.cols, mark: d.screen.MarkHistory(), flags: c.flags, gen: d.screenGen}
	n := b.mark.Len()
	b.next = n - 1
	switch {
	case c.role == roleWritable || c.flags&proto.PeekRedraw != 0:
		b.kind = buildHistory
		b.screen = d.screen.Redraw()
		want := c.history
		if want < 0 || want > n {
			want = n
		}
		c.history = 0
		b.stop = n - want
		b.histRows = c.termRowsLocked(d)
		b.budget = proto.MaxPayload - len(b.screen) - len(term.HistoryPrefix) - b.histRows - len("\x1b[0m")
	case c.flags&proto.PeekPlain != 0:
		b.kind = buildPeekPlain
		b.screen = bytes.TrimRight(d.screen.AppendPlainText(nil, false), "\n")
		b.hasLast = len(b.screen) > 0
		b.size = len(b.screen)
		b.budget = proto.MaxPayload
	default:
		b.kind = buildPeekANSI
		if c.flags&proto.PeekFollow != 0 {
			b.tail = d.screen.AppendStreamState(nil)
		}
		b.budget = proto.MaxPayload - 32 - len(b.tail)
		var last int
		b.screen, last = d.screen.PeekANSI(false, b.budget)
		if len(b.screen) > 0 {
			b.hasLast, b.last = true, n+last
		}
		b.size = len(b.screen)
		b.y, b.x, _ = d.screen.Cursor()
		b.y += n
	}
	if b.size >= b.budget || b.budget <= 0 {
		b.done = true
	}
	return b
}

// stepBuildLocked renders about buildSlice bytes more of the scrollback, from
// the newest line back, until the budget is spent, the lines asked for
// are, or a line is no longer there (scrolled out of the scrollback,
// cleared): the baseline then starts after it.
func (d *Daemon) stepBuildLocked(b *build) {
	form := term.FormANSI
	switch b.kind {
	case buildPeekPlain:
		form = term.FormPlain
	case buildHistory:
		form = term.FormHistory
	}
	for done := 0; done < buildSlice && !b.done; {
		if b.next < b.stop || b.next < 0 {
			b.done = true
			break
		}
		start := len(b.arena)
		var ok bool
		b.arena, ok = d.screen.AppendMarkedLine(b.arena, b.mark, b.next, form)
		if !ok {
			b.done = true
			break
		}
		n := len(b.arena) - start
		done += n + 16
		if b.kind != buildHistory && !b.hasLast {
			if n == 0 {
				b.arena = b.arena[:start]
				b.next--
				continue // trailing blank lines
			}
			b.hasLast, b.last = true, b.next
		}
		sep := 0
		if b.kind != buildHistory && (len(b.ends) > 0 || len(b.screen) > 0) {
			sep = 2 // CR LF, or LF for the plain text
			if b.kind == buildPeekPlain {
				sep = 1
			}
		}
		if b.size+n+sep > b.budget {
			b.arena = b.arena[:start]
			b.done = true
			break
		}
		b.size += n + sep
		b.ends = append(b.ends, len(b.arena))
		b.next--
	}
}

// finishBuildLocked assembles the baseline's payload.
func (d *Daemon) finishBuildLocked(b *build) []byte {
	sep := "\r\n"
	switch b.kind {
	case buildPeekPlain:
		sep = "\n"
	case buildHistory:
		sep = ""
	}
	size := b.size + len(b.screen) + len(b.tail) + 64
	if b.kind == buildHistory {
		size += len(term.HistoryPrefix) + b.histRows
	}
	out := make([]byte, 0, size)
	if b.kind == buildHistory && len(b.ends) > 0 {
		out = append(out, term.HistoryPrefix...)
	}
	// arena holds lines newest first; emit them oldest first.
	for k := len(b.ends) - 1; k >= 0; k-- {
		start := 0
		if k > 0 {
			start = b.ends[k-1]
		}
		out = append(out, b.arena[start:b.ends[k]]...)
		if k > 0 || len(b.screen) > 0 {
			out = append(out, sep...)
		}
	}
	b.arena, b.ends = nil, nil
	switch b.kind {
	case buildHistory:
		if len(out) > 0 {
			for i := 1; i < b.histRows; i++ {
				out = append(out, '\n')
			}
		}
		return append(out, b.screen...)
	case buildPeekPlain:
		return lastLines(append(out, b.screen...), proto.MaxPayload)
	}
	out = append(out, b.screen...)
	if len(out) == 0 {
		b.last = 0
	}
	out = appendCursorMove(out, b.y-b.last, b.x)
	return append(out, b.tail...)
}
