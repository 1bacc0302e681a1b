package daemon

import (
	"bytes"
	"strconv"
	"time"

	"github.com/ptyorg/pty/pkg/proto"
)

// emulate feeds one chunk of output to the screen and to every live
// client, under d.mu so that no attach falls between the two. During a
// flood (see floodingLocked) clients get the screen redrawn every floodRedraw
// instead of the bytes.
func (d *Daemon) emulate(b []byte) {
	d.mu.Lock()
	before := d.screen.HistorySeq()
	d.screen.Write(b)
	d.screenGen++
	d.shared = nil
	flood := d.floodingLocked(len(b))
	// A second processor from a quarter of the flood threshold on, so
	// that telling a flood does not wait on one processor's pace.
	if d.writers > 0 && (flood || d.floodBytes >= floodKeep) {
		d.fitProcsLocked(true)
	}
	for c := range d.clients {
		if !c.live {
			continue
		}
		if flood || c.stale {
			d.markStaleLocked(c)
			continue
		}
		if len(c.pending) == 0 {
			c.pendStart = before
		}
		d.enqueueLocked(c, proto.Data, b)
		if !c.overflow {
			// The terminal scrolls with the bytes as the session did.
			c.mark = d.screen.HistorySeq()
		}
	}
	d.mu.Unlock()
}

// floodingLocked adds n bytes of output to the current floodWindow and reports
// whether the output is a flood: more than floodThreshold in a window, far
// more than anyone reads, until a window with less than floodKeep. Then, as tmux does, clients are sent the screen
// as it is a few dozen times a second rather than every byte: a terminal
// need not render 32 MiB of cat, and the session drains at the speed of
// the emulator instead of at the speed of the slowest terminal. (What
// scrolled by is in the session's scrollback: pty peek --full.)
func (d *Daemon) floodingLocked(n int) bool {
	now := time.Now()
	if el := now.Sub(d.floodStart); el > floodWindow {
		// A flood goes on while every window has at least floodKeep:
		// otherwise the first floodThreshold bytes of each window would
		// still be forwarded.
		if el > 2*floodWindow || d.floodBytes < floodKeep {
			d.flood = false
		}
		d.floodStart, d.floodBytes = now, 0
	}
	d.floodBytes += n
	if d.floodBytes > floodThreshold {
		d.flood = true
	}
	return d.flood
}

// markStaleLocked notes that c missed output and schedules its redraw.
func (d *Daemon) markStaleLocked(c *client) {
	c.stale, c.missed = true, true
	if !c.owing {
		c.owing, c.owedSince = true, time.Now()
	}
	d.scheduleRedrawLocked(c)
}

// scheduleRedrawLocked redraws c floodRedraw from now, unless that is already
// due.
func (d *Daemon) scheduleRedrawLocked(c *client) {
	if c.redrawing {
		return
	}
	c.redrawing = true
	time.AfterFunc(floodRedraw, func() {
		d.mu.Lock()
		c.redrawing = false
		d.redrawStaleLocked(c)
		d.mu.Unlock()
	})
}

// redrawStaleLocked sends a stale client a fresh baseline, from which the live
// stream resumes.
//
// The baseline first writes the scrollback lines the client's terminal
// lacks, so that its scrollback holds every line the session kept, once
// and in order. While the output goes on, those wait: a redraw of the
// screen alone keeps the client stale, and the lines go with the first
// redraw after a tick without output (or after catchUpMax, for output
// that never stops). Written every tick, the scrollback would take the
// lines that scrolled by in each tick, most of which the session then
// drops: marker after marker, and many times the bytes. Until the lines
// are written no output is forwarded either, since the terminal would
// scroll its screen, lines newer than those, into its scrollback.
//
// A terminal that has not taken the previous redraw yet gets no other:
// the redraws go at its pace, and the daemon holds one at most.
func (d *Daemon) redrawStaleLocked(c *client) {
	if !c.stale || c.closed || !c.live {
		return
	}
	if c.build != nil {
		// Its baseline is being rendered; the output it misses is
		// redrawn after it.
		d.markStaleLocked(c)
		return
	}
	if c.busy || len(c.pending) > 0 {
		d.scheduleRedrawLocked(c)
		return
	}
	catchUp := !c.missed || time.Since(c.owedSince) >= catchUpMax
	c.missed = false
	if !catchUp {
		d.queueLocked(c, proto.Screen, d.redrawForLocked(c, false))
		d.flushLocked(c)
		d.scheduleRedrawLocked(c)
		return
	}
	c.stale, c.owing = false, false
	if !c.drawn && d.bigBaselineLocked(c) {
		// A first baseline with a long scrollback; later ones are
		// redraws with the lines since (redrawForLocked).
		d.deferBaselineLocked(c) // behind what is queued
		return
	}
	d.baselineLocked(c)
	d.flushLocked(c)
}

// baselineLocked appends GEOMETRY and SCREEN for c's role.
func (d *Daemon) baselineLocked(c *client) {
	d.queueLocked(c, proto.Geometry, proto.Size(d.rows, d.cols))
	d.queueLocked(c, proto.Screen, d.screenForLocked(c))
}

func (d *Daemon) screenForLocked(c *client) []byte {
	if c.drawn && (c.role == roleWritable || c.flags&proto.PeekFollow != 0) {
		return d.redrawForLocked(c, true)
	}
	if c.history != 0 && (c.role == roleWritable || c.flags&proto.PeekRedraw != 0) {
		// The scrollback first, into the terminal's own scrollback (as
		// the original's SCREEN carries it), within what a client of
		// either kind reads in one frame.
		redraw := d.screen.Redraw()
		b := d.screen.AppendHistory(nil, c.history, c.termRowsLocked(d), proto.MaxPayload-len(redraw))
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
		return lastLines(bytes.TrimRight(d.screen.AppendPlainText(nil, full), "\n"), proto.MaxPayload)
	}
	var tail []byte
	if c.flags&proto.PeekFollow != 0 {
		tail = d.screen.AppendStreamState(nil)
	}
	return append(d.peekANSILocked(full, len(tail)), tail...)
}

// redrawForLocked is the SCREEN of a client that already shows the session:
// with catchUp, first the scrollback lines its terminal lacks (or a
// marker for those the session no longer keeps), from the top of the
// screen its client has erased, scrolled off, then the screen as the
// client's role draws it.
func (d *Daemon) redrawForLocked(c *client, catchUp bool) []byte {
	var screen []byte
	if c.role == roleWritable || c.flags&proto.PeekRedraw != 0 {
		screen = d.screen.Redraw()
	} else {
		// The viewport alone: a follower's scrollback came with its
		// first baseline, and the rest comes before this.
		tail := d.screen.AppendStreamState(nil)
		screen = append(d.peekANSILocked(false, len(tail)), tail...)
	}
	if !catchUp {
		return screen
	}
	c.mark = min(c.mark, d.screen.HistorySeq())
	b := d.screen.AppendHistorySince(nil, c.mark, c.termRowsLocked(d), proto.MaxPayload-len(screen)-8)
	c.mark = d.screen.HistorySeq()
	if len(b) > 0 {
		b = append(b, "\x1b[H"...) // where the screen is drawn from
	}
	return append(b, screen...)
}

// peekANSILocked is the text form of a read-only baseline as the original's
// (xterm's serializer) is: lines separated by CR LF, so that it draws the
// same on a terminal in raw mode (peek -f) as in a file, and ending with a
// move to the program's cursor, so that the live output which follows
// lands where it would have. The move is relative (line feeds down, CUU
// up, then CR and CUF), since a reader draws the text from the top of a
// cleared screen whose size may not be the session's. pty peek leaves the
// move out when it prints (client.PeekText). reserve is room kept in the
// frame for what a follower gets after the move (PeekFollow).
func (d *Daemon) peekANSILocked(full bool, reserve int) []byte {
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

// termRowsLocked is the height of c's terminal, which history lines are
// scrolled off: the session's for a reader that never said its size.
func (c *client) termRowsLocked(d *Daemon) int {
	if c.rows <= 0 {
		return d.rows
	}
	return c.rows
}
