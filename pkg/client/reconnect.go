package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// ErrConnectionLost is in the chain of Attach's error when the connection
// ended without the session's EXIT: the daemon or what carries the
// connection went away, never a sign that the session ended.
var ErrConnectionLost = errors.New("connection lost")

// Reconnect bounds AttachRouted's retries.
type Reconnect struct {
	// Host names the host in "[reconnecting to HOST... Ctrl+\ to stop]".
	Host string
	// MaxAttempts is how many reconnects are tried after each drop; 0
	// is no limit.
	MaxAttempts int
	// Final reports a routing error that retrying cannot mend (the host
	// answered that the session is not there, refused the login): the
	// attach ends with it. Others are retried.
	Final func(error) bool
	// Ended, when set, is asked how session ref ended when a reconnect's
	// route is refused for good (Final): the session went while the
	// connection was down, and the host's answer says only that it is
	// not there to attach to. exited: it ended with code, and the attach
	// ends as on the session's EXIT; else err, when not nil, ends it
	// instead of the refusal.
	Ended func(ref string, refusal error) (code int, exited bool, err error)
}

// Backoff of AttachRouted: the first retry after 100 ms, each wait twice
// the last, up to 15 s.
const (
	backoffFirst = 100 * time.Millisecond
	backoffMax   = 15 * time.Second
)

// ReconnectAttemptsEnv limits the reconnects after a drop, as in the
// original ("0" or unset: no limit).
const ReconnectAttemptsEnv = "PTY_RECONNECT_MAX_ATTEMPTS"

// ParseReconnectAttempts reads PTY_RECONNECT_MAX_ATTEMPTS.
func ParseReconnectAttempts(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q is not a whole number of attempts (0 or unset: no limit)", ReconnectAttemptsEnv, v)
	}
	return n, nil
}

// AttachRouted is Attach over connections that route opens to session
// ref, opened again when one drops without the session's EXIT: the user
// sees "[reconnecting to HOST... Ctrl+\ to stop]" on the bottom row while
// it retries with backoff, then the session's screen again. Lines the
// session printed meanwhile go into the terminal's scrollback, and only
// those: the terminal already holds the ones before the drop. A writable
// attach can be switched (pty switch typed in the session) to another
// session of the same route's host.
func AttachRouted(route Router, ref string, o AttachOptions, p Reconnect) (Result, error) {
	tr := newTracker(o.Out, o.OutFile, o.In)
	defer tr.stop()
	o.Out = tr
	name := o.Name // how messages call the session attached to now
	c, done, err := route(ref, nil)
	if err != nil {
		return Result{}, err
	}
	limit, lines := o.LimitHistory, o.History // the user's --history
	if !o.ReadOnly {
		// A switch (pty switch typed in the session) goes to the other
		// session on the same host, over a route of its own, which is
		// the one reconnected from then on. It attaches as the first
		// attach did, with the user's --history.
		o.Switch = func(id string) (*Conn, string, string, error) {
			next, nextDone, err := route(id, nil)
			if err != nil {
				return nil, "", "", err
			}
			done()
			done, ref, name = nextDone, id, id
			return next, id, "pty: " + id, nil
		}
		o.switched = func(c *Conn, ao *AttachOptions) {
			before, _, counted := historyCount(c)
			ao.LimitHistory, ao.History = limit, lines
			tr.begin(before, counted, !limit, false)
		}
	}
	// A follower in the text form (peek -f) gets no history with its
	// baseline: its terminal has only the lines that scrolled by since.
	textFollow := o.ReadOnly && o.PeekFlags&proto.PeekRedraw == 0
	// first: no baseline has reached the terminal yet, which a drop
	// before the first one leaves so.
	for first := true; ; first = first && !tr.drew() {
		before, full, counted := historyCount(c)
		if !first {
			// The terminal as it is now: a resize during the outage
			// moved lines between its screen and its scrollback.
			tr.settle()
			n := tr.reattach(before, full, counted, limit, lines)
			if textFollow && n != 0 {
				// The history comes only with the baseline of attach
				// -R, in the form the tracker reads (Redraw's):
				// peek -f is reattached as attach -R is, and goes on
				// as one.
				o.PeekFlags |= proto.PeekFull | proto.PeekRedraw
				textFollow = false
			}
			o.LimitHistory, o.History = n >= 0, n
			// Blank the screen row by row, which no terminal copies
			// into its scrollback (tmux does for ED 2), so that the
			// redraw pushes nothing there.
			tr.raw(proto.RedrawInPlace(nil, nil, tr.rows()))
		}
		tr.begin(before, counted, first && !limit && !textFollow, !first)
		tr.cutWith(c)
		res, err := Attach(c, o)
		done()
		lost := errors.Is(err, ErrConnectionLost)
		refused := tr.end(lost)
		if !lost {
			return res, err
		}
		if refused {
			// Not a drop: the route is asked again at once, for all
			// of the history. One that fails is a drop.
			if c, done, err = route(ref, nil); err == nil {
				continue
			}
		}
		var ended *Result
		if c, done, ended, err = reroute(route, ref, name, p, tr, err); ended != nil || err != nil {
			if ended != nil {
				return *ended, nil
			}
			return Result{}, err
		}
	}
}

// reattach is how many lines of history a reattach asks for (-1: all of
// them) when the daemon's count is before (full: its scrollback is full;
// counted: the count is known), within the user's --history lines when
// limit; and it sets what the tracker compares the baseline's with.
func (t *tracker) reattach(before int, full, counted, limit bool, lines int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The lines that scrolled off the session's screen while the
	// terminal was away, which its scrollback lacks; none when they
	// cannot be counted (the original's daemon, which sends all of its
	// history whatever is asked). A few more than counted: lines that
	// scroll between the count and the ATTACH are then in the baseline
	// too, and the tracker drops those its terminal already has, as many
	// as it finds (a count that ran behind the terminal's asks for more).
	// A full scrollback counts the same however much scrolled: then as
	// many lines as the tracker can compare are asked for, and compared.
	//
	// A baseline that came with none of the terminal's last lines though
	// it had as many as were asked for may begin after them (more
	// scrolled between the count and the ATTACH than the slack, or, in a
	// full scrollback, than the copy compares): the tracker drew none of
	// it and ended the connection (reask), and this reattach asks for
	// all of the history, its overlap where the counts say when they do.
	n, window, expect := 0, reattachSlack, -1
	b := baselineAsk{}
	lack := max(before-t.atDrop, 0)
	switch {
	case t.known && t.reask:
		n, window, b.whole = -1, math.MaxInt, true
		if counted && !full {
			expect = t.atDrop
		}
	case full && t.known:
		n, window = min(before, tracked), tracked
		// A full scrollback keeps its count: asked for as many
		// lines as it has, the baseline has all of them.
		b.whole = n >= before
		if !b.whole {
			b.asked = n
		}
	case counted && t.known:
		n = lack + reattachSlack
		window, expect = min(n, tracked), max(min(n, before)-lack, 0)
		b.asked = n
	}
	if limit && (n < 0 || n > lines+reattachSlack) {
		// The user's --history bounds what a reattach brings
		// too: the lines before it are left out on purpose, and
		// a baseline without the terminal's is not asked again.
		n, b = lines+reattachSlack, baselineAsk{}
		if counted && t.known && !full {
			window, expect = min(n, tracked), max(min(n, before)-lack, 0)
		}
	}
	b.full = full
	t.win, t.expect, t.ask = window, expect, b
	return n
}

// reroute waits and routes again until a connection opens, the user stops
// (Ctrl+\ or Ctrl+C, which the terminal, back in its normal mode, turns
// into signals), the attempts run out, or the host refuses for good. A
// refusal that p.Ended says is the session's exit ends the attach as
// the EXIT would have: the result, and "[NAME exited with code N]" below
// the reconnecting line.
func reroute(route Router, ref, name string, p Reconnect, tr *tracker, why error) (*Conn, func(), *Result, error) {
	msg := fmt.Sprintf("[reconnecting to %s... Ctrl+\\ to stop]", p.Host)
	tr.raw([]byte("\x1b[999;1H\r\x1b[2K" + msg))
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGQUIT, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(stop)
	wait := backoffFirst
	for attempt := 1; ; attempt++ {
		select {
		case <-stop:
			tr.raw([]byte("\r\n[stopped reconnecting]\r\n"))
			return nil, nil, nil, fmt.Errorf("stopped reconnecting to %s: %w", p.Host, why)
		case <-time.After(wait):
		}
		c, done, err := route(ref, nil)
		if err == nil {
			return c, done, nil, nil
		}
		if p.Final != nil && p.Final(err) {
			if p.Ended != nil {
				code, exited, e := p.Ended(ref, err)
				if exited {
					tr.raw([]byte(fmt.Sprintf("\r\n[%s exited with code %d]\r\n", name, code)))
					return nil, nil, &Result{Exited: true, Code: code}, nil
				}
				if e != nil {
					err = e
				}
			}
			tr.raw([]byte("\r\n"))
			return nil, nil, nil, err
		}
		why = err
		if p.MaxAttempts > 0 && attempt >= p.MaxAttempts {
			tr.raw([]byte("\r\n[gave up reconnecting]\r\n"))
			return nil, nil, nil, fmt.Errorf("gave up reconnecting to %s after %d attempts: %w", p.Host, attempt, err)
		}
		wait = min(wait*2, backoffMax)
	}
}

// historyCount asks the daemon how many lines its scrollback holds, and
// whether it is full.
func historyCount(c *Conn) (n int, full, ok bool) {
	b, err := c.Status(StatusTimeout)
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

// tracker is the user's terminal as AttachRouted writes to it: the bytes
// pass through, and a copy of the terminal (the daemon's own emulator, at
// the terminal's size) counts the lines that scroll into its scrollback,
// which is how many of the session's lines the terminal has when the
// connection drops. It holds back what Attach writes once it ends (its
// reset and message) until AttachRouted knows whether it will reconnect:
// a message that scrolled the screen would push a row of the session
// into the scrollback ahead of its time.
type tracker struct {
	w       io.Writer
	outFile *os.File
	in      *os.File
	winch   chan os.Signal

	mu       sync.Mutex
	scr      *term.Screen
	holding  bool
	held     []byte
	fresh    bool     // the next write is the connection's baseline
	base     int      // the daemon's history count when this connection attached
	baseSeq  int64    // the copy's line count once the baseline was drawn
	counted  bool     // base is known
	all      bool     // the baseline has all of the daemon's history
	again    bool     // the baseline is a reattach's
	tailText []string // the copy's last lines of history before a reattach
	win      int      // how many of them a reattach's baseline may repeat
	expect   int      // how many it should repeat by the counts (-1: unknown)
	known    bool     // atDrop is known
	drawn    bool     // a baseline has been drawn
	// The base and counted of the last connection whose baseline was
	// drawn, which a connection that drops before its own goes back to.
	prevBase    int
	prevCounted bool
	atDrop      int // the daemon's history count that the terminal's scrollback ends at
	curRows     int
	ask         baselineAsk // what the reattach's baseline was asked for
	// cut ends the connection whose baseline is refused: it began after
	// the terminal's last line. refused is that baseline as it would be
	// drawn (none of it is; nor anything after it), and reask says the
	// next reattach asks for all of the history.
	cut     func()
	refused []byte
	reask   bool
}

// baselineAsk is what a reattach asked for, which says what its baseline
// without the terminal's last lines means.
type baselineAsk struct {
	// asked is how many lines of history were asked for when that may
	// be fewer than the daemon has: a baseline with as many, none of
	// them the terminal's, may have begun after the terminal's last
	// line. 0: no such ask.
	asked int
	// whole: all of the daemon's history was asked for.
	whole bool
	// full: the daemon's scrollback was full at the count, so lines
	// have left it: a whole baseline without the terminal's last lines
	// is after lines that are gone from the host too.
	full bool
}

func newTracker(w io.Writer, outFile, in *os.File) *tracker {
	rows, cols := TermSize(outFile, in)
	t := &tracker{w: w, outFile: outFile, in: in, winch: make(chan os.Signal, 1), curRows: rows,
		scr: term.New(rows, cols, term.Options{Scrollback: tracked}), win: reattachSlack}
	signal.Notify(t.winch, syscall.SIGWINCH)
	return t
}

func (t *tracker) stop() { signal.Stop(t.winch) }

func (t *tracker) rows() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resizeLocked()
	return t.curRows
}

// resizeLocked follows the terminal's size.
func (t *tracker) resizeLocked() {
	select {
	case <-t.winch:
		r, c := TermSize(t.outFile, t.in)
		t.scr.Resize(r, c)
		t.curRows = r
	default:
	}
}

func (t *tracker) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.holding && string(p) == finishStart {
		t.holding = true
	}
	if t.holding {
		t.held = append(t.held, p...)
		return len(p), nil
	}
	if t.refused != nil {
		// The connection is being ended: what follows the refused
		// baseline continues it.
		return len(p), nil
	}
	t.resizeLocked()
	h := -1 // the baseline's history lines, when read
	if t.fresh && t.again && t.known {
		q, n, gap, ok := t.dedupeLocked(p)
		if ok && gap && t.cut != nil {
			t.refused, t.reask = q, true
			t.cut()
			return len(p), nil
		}
		if ok {
			p, h = q, n
		}
	}
	seq := t.scr.HistorySeq()
	t.scr.Write(p)
	if t.fresh && t.again && t.known {
		t.fresh, t.reask = false, false
		t.baseSeq = t.scr.HistorySeq()
		t.base, t.counted = t.atDrop+int(t.baseSeq-seq), true
		if t.ask.whole && h >= 0 {
			// All of the daemon's lines, wherever the terminal's
			// ended (lines lost meanwhile, or a marker for them, make
			// the two differ).
			t.base = h
		}
		return t.w.Write(p)
	}
	if t.fresh {
		t.fresh = false
		t.baseSeq = t.scr.HistorySeq()
		if t.all {
			// A baseline with all of the history: it holds exactly
			// the daemon's lines, at the size they have now (the
			// count asked before the ATTACH predates its resize).
			t.base, t.counted = int(t.baseSeq-seq), true
		}
	}
	return t.w.Write(p)
}

// raw writes p to the terminal and the copy, whatever is held.
func (t *tracker) raw(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resizeLocked()
	t.scr.Write(p)
	t.w.Write(p)
}

// begin starts a connection whose daemon had base lines of history
// (counted: known) before its baseline, which has all of them when all.
// A reattach's baseline (again) has reattachSlack lines more than the
// terminal lacks, bar those that scrolled after the count.
func (t *tracker) begin(base int, counted, all, again bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.prevBase, t.prevCounted = t.base, t.counted
	t.fresh, t.base, t.counted, t.all, t.again = true, base, counted, all, again
	t.holding, t.held, t.refused = false, nil, nil
	t.reask = t.reask && again
}

// cutWith makes c the connection that a refused baseline ends.
func (t *tracker) cutWith(c *Conn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cut = func() { c.Close() }
}

// end settles what Attach wrote as it ended: passed on, or, when the
// connection was lost and will be retried, only the modes' reset (the
// terminal is left as the user had it while no session is drawn). It
// reports whether the connection was lost because the tracker refused
// its baseline.
func (t *tracker) end(lost bool) (refused bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	held, gapped := t.held, t.refused
	t.holding, t.held, t.refused, t.cut = false, nil, nil, nil
	if !lost {
		if gapped != nil {
			// The attach ended otherwise (the session's EXIT was read
			// with the baseline): the baseline is all there is to
			// draw.
			t.scr.Write(gapped)
			t.w.Write(gapped)
			t.fresh, t.reask = false, false
		}
		t.w.Write(held)
		return false
	}
	if t.fresh {
		// Nothing of this connection reached the terminal (it dropped
		// before its baseline): the terminal is as the last one left
		// it, and so is what is known of it.
		t.base, t.counted = t.prevBase, t.prevCounted
	} else {
		t.known, t.drawn = t.counted, true
	}
	t.w.Write([]byte(proto.ResetModes))
	t.scr.Write([]byte(proto.ResetModes))
	return gapped != nil
}

// drew reports whether a baseline has reached the terminal.
func (t *tracker) drew() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.drawn
}

// settle brings the copy to the terminal's size before a reattach and
// reads from it where the terminal's scrollback ends: a resize during
// the outage pulled lines from the scrollback onto a taller screen, or
// pushed rows of a shorter one into it, and rewrapped both at a new
// width, as the terminal did (tmux's way). The copy's line number
// follows the lines pulled and pushed.
func (t *tracker) settle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resizeLocked()
	if !t.known {
		return
	}
	t.atDrop = t.base + int(t.scr.HistorySeq()-t.baseSeq)
	hist := t.scr.Lines(true)[:t.scr.ScrollbackLen()]
	t.tailText = hist[max(len(hist)-tracked, 0):]
}

// finishStart is the first write of an attach that ends (finishOn), in
// one piece, so that the tracker can tell it from the session's output.
const finishStart = proto.ResetModes + "\x1b[999;1H"

// tracked is how many lines of history the tracker's copy keeps, and so
// how many a reattach can compare.
const tracked = 1000

// reattachSlack is how many lines of history a reattach asks for beyond
// those the terminal lacks by the count: more than can scroll by between
// the count and the ATTACH, at the cost of their bytes.
const reattachSlack = 64

// redrawPrefix and redrawSuffix enclose the SCREEN in Redraw's output.
const (
	redrawPrefix = "\x1b[?2026h" + proto.ResetModes + "\x1b[H\x1b[2J"
	redrawSuffix = "\x1b[?2026l"
)

// dedupeLocked is a reattach's baseline p (Redraw's output) without the
// history lines the terminal's scrollback already has: the baseline is
// read by a copy of the daemon's emulator, the newest run of its history
// that continues the terminal's (at most the window's lines, compared as
// text) is dropped, and the rest and the screen are written again as the
// daemon writes them. h is how many history lines the baseline had. gap
// says it has none of the terminal's last lines but as many as were
// asked for: it may begin after them, the lines between in neither.
// When all of a full scrollback came without them, the lines between
// are gone from the host too, and a marker line (AppendLostMarker)
// stands for them.
func (t *tracker) dedupeLocked(p []byte) (_ []byte, h int, gap, ok bool) {
	if !bytes.HasPrefix(p, []byte(redrawPrefix)) || !bytes.HasSuffix(p, []byte(redrawSuffix)) {
		return nil, 0, false, false
	}
	payload := p[len(redrawPrefix) : len(p)-len(redrawSuffix)]
	rows, cols := t.scr.Size()
	scratch := term.New(rows, cols, term.Options{Scrollback: 1 << 20})
	scratch.Write(payload)
	h = scratch.ScrollbackLen()
	got := scratch.Lines(true)[:h]
	have := t.tailText
	j := overlap(got, have, t.win, t.expect)
	out := []byte(redrawPrefix)
	switch {
	case j > 0:
	case t.ask.asked > 0 && h >= t.ask.asked:
		gap = true
	case t.ask.whole && t.ask.full && h > 0 && len(have) > 0:
		out = AppendLostMarker(out, rows)
	}
	out = append(out, scratch.AppendHistory(nil, h-j, rows, proto.MaxPayload)...)
	out = append(out, scratch.Redraw()...)
	return append(out, redrawSuffix...), h, gap, true
}

// LostMarker is the line a reconnect writes into the scrollback (the
// terminal's, pty web's emulator's) where lines are missing that the
// session's scrollback no longer has: they left it during the outage.
// How many is not known: a full scrollback's count stays the same.
const LostMarker = "[pty: lines lost while reconnecting]"

// AppendLostMarker writes LostMarker, dim as the daemon's marker for the
// lines it did not keep, into the scrollback of a blank screen of rows
// rows whose cursor is at the top: the line feeds push every row it took
// off the top, and the history after it is written from the top again.
func AppendLostMarker(b []byte, rows int) []byte {
	b = append(b, "\x1b[0;2m"+LostMarker+"\x1b[0m\r\n"...)
	for i := 1; i < rows; i++ {
		b = append(b, '\n')
	}
	return b
}

// overlap is how many of got's first lines the terminal has: those up
// to a line where got has have's last lines, as many of them as got has
// before it, up to matchRun: a line the terminal lacks further back
// (lost in an outage longer than the session's scrollback) does not make
// a whole baseline look new. got may begin with lines older than the
// terminal's scrollback (peek -f's, which began with the screen), which
// go too.
// Of the numbers (at most win) at which the text is the same, the one
// closest to expect (the larger of two as close), or the largest when
// expect is unknown (-1): lines that repeat (blank ones, a program
// printing the same line over and over) match at several, and the
// counts say which is meant.
func overlap(got, have []string, win, expect int) int {
	win = min(win, len(got))
	if len(have) == 0 {
		return max(min(expect, win), 0)
	}
	same := func(i int) bool {
		if i <= 0 || i > win {
			return false
		}
		m := min(i, len(have), matchRun)
		return equal(got[i-m:i], have[len(have)-m:])
	}
	if expect < 0 {
		for i := win; i > 0; i-- {
			if same(i) {
				return i
			}
		}
		return 0
	}
	for d := 0; expect+d <= win || expect-d > 0; d++ {
		if same(expect + d) {
			return expect + d
		}
		if d > 0 && same(expect-d) {
			return expect - d
		}
	}
	return 0
}

// matchRun is how many of the terminal's last lines a baseline's must
// repeat to count as the same.
const matchRun = 64

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
