package web

import (
	"math"
	"slices"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// A remote session's route can drop and be made again, and the new
// connection's daemon knows nothing of what the old one sent: its
// baseline starts the history afresh. The emulator and the pages keep
// what they have; from the new baseline only the lines they lack are
// taken, as pty attach --remote does for a terminal (pkg/client,
// AttachRouted): the daemon's history count (STATUS) says how many lines
// scrolled by while the route was down, the baseline brings those and a
// few more, and the lines the emulator already has are found by their
// text and left out.

// stitchSlack is how many lines of history a reconnect asks for beyond
// those the emulator lacks by the count: more than can scroll between the
// count and the PEEK.
const stitchSlack = 64

// stitch is what a followed remote session's emulator knows of the
// daemon's history across connections.
type stitch struct {
	again   bool  // the connection continues the emulator
	fresh   bool  // its baseline is not drawn yet
	before  int   // the daemon's history count before the PEEK
	full    bool  // its scrollback was full then: counts say nothing
	counted bool  // base is known
	all     bool  // the baseline was asked for all of the history
	win     int   // how many of a baseline's first lines may repeat the emulator's last; -1: any
	base    int   // the daemon's history count when the baseline was drawn
	baseSeq int64 // the emulator's HistorySeq once it was drawn
	asked   int   // how many lines of history the baseline was asked for; 0: all
	reasked bool  // the baseline was asked for again, with all of the history
	known   bool  // atDrop is known
	atDrop  int   // the daemon's history count when the connection dropped
	tail    []string
}

// begin asks the new connection's daemon for its history count and, on
// a reconnect whose count tells, for the lines the emulator lacks and a
// few more; otherwise the baseline brings all of the history.
func (st *stitch) begin(c *client.Conn) error {
	st.before, st.full, st.counted = historyCount(c)
	st.fresh, st.all, st.win, st.asked, st.reasked = true, true, -1, 0, false
	if st.again && st.known && st.counted && !st.full {
		st.all, st.win = false, stitchSlack
		st.asked = max(st.before-st.atDrop, 0) + stitchSlack
		return c.WriteFrame(proto.History, proto.HistoryLines(st.asked))
	}
	return nil
}

// askAll asks the connection's daemon for its baseline again, with all
// of its history: the one that came began after the emulator's last
// line (more lines scrolled between the count and the PEEK than the
// slack), so the lines between were in neither. Until the new baseline
// the stream is not drawn: the baseline has it.
func (st *stitch) askAll(c *client.Conn) error {
	st.all, st.win, st.asked, st.reasked = true, -1, 0, true
	if err := c.WriteFrame(proto.History, proto.HistoryLines(math.MaxInt32)); err != nil {
		return err
	}
	return c.WriteFrame(proto.Peek, proto.PeekRequest(peekFollow))
}

// historyCount asks the daemon how many lines its scrollback holds, and
// whether it is full (pkg/client reads STATUS so for a reattach).
func historyCount(c *client.Conn) (n int, full, ok bool) {
	b, err := c.Status(client.StatusTimeout)
	if err != nil {
		return 0, false, false
	}
	st, err := proto.ParseStatus(b)
	if err != nil || st.Terminal.Rows <= 0 {
		return 0, false, false
	}
	t := st.Terminal
	return max(t.ScrollbackUsed-t.Rows, 0), t.ScrollbackCapacity > 0 && t.ScrollbackUsed >= t.ScrollbackCapacity, true
}

// dedupe is a reconnect's baseline p (the history form of PEEK with the
// redraw and full bits) without the history lines scr already has: the
// newest run of the baseline's history that continues scr's (any length,
// or at most win lines) is left out, and the rest and the screen written
// again as the daemon writes them. It returns how many history lines the
// baseline had; ok is false when the baseline, asked for a part of the
// history, has none of scr's lines but had as many as it was asked for:
// more lines scrolled between the count and the PEEK than the slack, and
// those between scr's last and the baseline's first would be lost. The
// caller then asks again for all of it (askAll). All of a full
// scrollback without scr's lines comes after lines gone from the host
// too: a marker line (client.LostMarker) stands for them.
func (st *stitch) dedupe(p []byte, scr *term.Screen) (_ []byte, h int, ok bool) {
	rows, cols := scr.Size()
	scratch := term.New(rows, cols, term.Options{Scrollback: 1 << 20})
	scratch.Write(p)
	h = scratch.ScrollbackLen()
	got := scratch.Lines(true)[:h]
	n := h
	if st.win >= 0 {
		n = min(n, st.win)
	}
	j := overlap(got[:n], st.tail)
	if j == 0 && st.win >= 0 {
		if st.asked > 0 && h >= st.asked && !st.reasked {
			return nil, h, false
		}
		// All of the daemon's history came: any run of it continues
		// scr's.
		j = overlap(got, st.tail)
	}
	var out []byte
	if j == 0 && st.all && st.full && h > 0 && len(st.tail) > 0 {
		// All of a full scrollback, none of it the emulator's: the
		// lines between left the session's scrollback during the
		// outage, and a marker stands for them.
		out = client.AppendLostMarker(out, rows)
	}
	out = scratch.AppendHistory(out, h-j, rows, proto.MaxPayload)
	return append(out, scratch.Redraw()...), h, true
}

// overlap is how many of got's first lines the emulator has: the
// largest number (at most len(got)) whose last lines, up to matchRun of
// them, are the last lines of have. The run is bounded so that a line
// the emulator lacks further back (lost in an outage longer than the
// daemon's scrollback) does not make the whole baseline count as new.
func overlap(got, have []string) int {
	if len(have) == 0 {
		return 0
	}
	last := have[len(have)-1]
	for j := len(got); j > 0; j-- {
		if got[j-1] != last {
			continue
		}
		m := min(j, len(have), matchRun)
		if slices.Equal(got[j-m:j], have[len(have)-m:]) {
			return j
		}
	}
	return 0
}

// matchRun is how many of the emulator's last lines a baseline's must
// repeat to count as the same.
const matchRun = 64

// drawn records the baseline just drawn: the emulator's history went
// from seq to scr's, and the baseline had h history lines.
func (st *stitch) drawn(scr *term.Screen, seq int64, h int) {
	st.fresh, st.tail = false, nil
	st.baseSeq = scr.HistorySeq()
	switch {
	case st.all:
		// All of the daemon's lines, unless the 32 MiB bound cut them.
		st.base = h
		st.counted = st.counted && h >= st.before
	case st.known:
		// The lines after atDrop, and no others.
		st.base, st.counted = st.atDrop+int(st.baseSeq-seq), true
	}
}

// dropped records the emulator as the connection leaves it.
func (st *stitch) dropped(scr *term.Screen) {
	st.again = scr != nil
	st.known = st.counted && !st.fresh && scr != nil
	if scr == nil {
		return
	}
	if st.known {
		st.atDrop = st.base + int(scr.HistorySeq()-st.baseSeq)
	}
	st.tail = scr.Lines(true)[:scr.ScrollbackLen()]
}
