package client

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

func lines(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// overlap finds how many of a reattach's history lines the terminal
// already has.
func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		name        string
		got, have   []string
		win, expect int
		want        int
	}{
		{"the counted overlap", lines("n", 10, 80), lines("n", 1, 20), 71, 11, 11},
		{"a count that ran behind", lines("n", 5, 80), lines("n", 1, 20), 76, 11, 16},
		{"a count that ran ahead", lines("n", 15, 80), lines("n", 1, 20), 66, 11, 6},
		{"older than the terminal's scrollback (peek -f)", lines("n", 1, 80), lines("n", 30, 45), 99, 45, 45},
		{"nothing in common", lines("n", 50, 80), lines("n", 1, 20), 31, 5, 0},
		{"beyond the window", lines("n", 1, 80), lines("n", 1, 70), 64, 64, 0},
		{"unknown counts: the largest", lines("n", 10, 80), lines("n", 1, 20), 64, -1, 11},
		{"repeated lines: the count decides", repeat("same", 80), repeat("same", 40), 80, 30, 30},
		{"repeated lines, unknown count: all the window", repeat("same", 80), repeat("same", 40), 64, -1, 64},
		{"an empty scrollback: the count", lines("n", 1, 80), nil, 80, 7, 7},
		{"an empty scrollback, unknown count", lines("n", 1, 80), nil, 80, -1, 0},
	} {
		if got := overlap(c.got, c.have, c.win, c.expect); got != c.want {
			t.Errorf("%s: overlap = %d, want %d", c.name, got, c.want)
		}
	}
}

// A line the terminal lacks further back (an outage longer than the
// session's scrollback) does not make a whole baseline look new: the
// match is of the terminal's last lines.
func TestOverlapAfterGap(t *testing.T) {
	var got, have []string
	for i := 1; i <= 300; i++ {
		got = append(got, "n"+strconv.Itoa(i))
		if i < 20 || i > 30 && i <= 200 {
			have = append(have, "n"+strconv.Itoa(i))
		}
	}
	for _, expect := range []int{-1, 189, 200} {
		if n := overlap(got, have, len(got), expect); n != 200 {
			t.Errorf("expect %d: overlap = %d, want 200", expect, n)
		}
	}
}

// stitchRig is a reattaching tracker as AttachRouted drives it, without
// the connections: the daemon is an emulator whose baselines are written
// as the daemon writes them, and the user's terminal is another.
type stitchRig struct {
	t            *testing.T
	rows, cols   int
	tr           *tracker
	daemon, user *term.Screen
	printed      int
	cuts         int
}

func newStitchRig(t *testing.T, daemonScrollback int) *stitchRig {
	const rows, cols = 5, 40
	r := &stitchRig{t: t, rows: rows, cols: cols,
		daemon: term.New(rows, cols, term.Options{Scrollback: daemonScrollback}),
		user:   term.New(rows, cols, term.Options{Scrollback: 100000})}
	r.tr = &tracker{w: r.user, winch: make(chan os.Signal, 1), curRows: rows,
		scr: term.New(rows, cols, term.Options{Scrollback: tracked}), win: reattachSlack}
	// The first attach: all of the (empty) history.
	r.tr.begin(0, true, true, false)
	r.tr.Write(r.baseline(-1))
	return r
}

// print has the session print n more lines, the terminal getting them
// when attached.
func (r *stitchRig) print(n int, attached bool) {
	for ; n > 0; n-- {
		r.printed++
		line := []byte("n" + strconv.Itoa(r.printed) + "\r\n")
		r.daemon.Write(line)
		if attached {
			r.tr.Write(line)
		}
	}
}

// baseline is the daemon's baseline with n lines of history (-1: all),
// as Attach writes it.
func (r *stitchRig) baseline(n int) []byte {
	p := r.daemon.AppendHistory(nil, n, r.rows, proto.MaxPayload)
	return proto.Redraw(nil, append(p, r.daemon.Redraw()...))
}

// count is the daemon's STATUS: its history count, and whether its
// scrollback is full.
func (r *stitchRig) count(capacity int) (int, bool) {
	return r.daemon.ScrollbackLen(), r.daemon.ScrollbackLen() >= capacity
}

// reattach is one reattach after a drop: the count, scrolled lines
// between it and the ATTACH, the baseline; it reports whether the
// tracker refused the baseline (and so ended the connection).
func (r *stitchRig) reattach(capacity, scrolled int) (n int, refused bool) {
	r.tr.settle()
	before, full := r.count(capacity)
	n = r.tr.reattach(before, full, true, false, 0)
	r.tr.raw(proto.RedrawInPlace(nil, nil, r.tr.rows()))
	r.tr.begin(before, true, false, true)
	r.tr.cut = func() { r.cuts++ }
	r.print(scrolled, false)
	r.tr.Write(r.baseline(n))
	return n, r.cuts > 0 && r.tr.refused != nil
}

// numbers are the user's terminal's counter lines, scrollback and screen.
func (r *stitchRig) numbers() []string {
	var ns []string
	for _, l := range r.user.Lines(true) {
		if len(l) > 1 && l[0] == 'n' && strings.Trim(l[1:], "0123456789") == "" {
			ns = append(ns, l)
		}
	}
	return ns
}

// The reattach that lost lines: the terminal's scrollback ends at n100,
// the count asked for the 64 lines of slack beyond those it lacked, and
// more than that scrolled before the ATTACH, so the baseline begins after
// n101. The tracker draws none of it and ends the connection; the next
// reattach asks for all of the history and draws every line once.
func TestReattachBaselineAfterLastLine(t *testing.T) {
	const capacity = 5000
	r := newStitchRig(t, capacity)
	r.print(104, true)
	r.tr.end(true)
	r.print(10, false)
	scrollback := func() string { return strings.Join(r.user.Lines(true)[:r.user.ScrollbackLen()], "\n") }
	was := scrollback()
	n, refused := r.reattach(capacity, 200)
	if !refused {
		t.Fatalf("a baseline of %d lines from n%d on was taken after n100: %s", n, r.printed-r.rows+1-n, testutil.CounterProblem(r.numbers(), r.printed))
	}
	if now := scrollback(); now != was {
		t.Fatalf("the refused baseline reached the terminal:\n%s", now)
	}
	r.print(5, false) // what the connection still carried is not drawn
	if !r.tr.end(true) {
		t.Fatal("end does not report the refusal")
	}
	if n, refused := r.reattach(capacity, 200); refused || n != -1 {
		t.Fatalf("the reattach after the refusal asked for %d lines (refused %v), not all of them", n, refused)
	}
	r.print(10, true)
	if p := testutil.CounterProblem(r.numbers(), r.printed); p != "" {
		t.Fatal(p)
	}
	// And the next drop stitches by the counts again.
	r.tr.end(true)
	r.print(30, false)
	if n, refused := r.reattach(capacity, 3); refused || n != 30+reattachSlack {
		t.Fatalf("the next reattach asked for %d lines (refused %v)", n, refused)
	}
	r.print(3, true)
	if p := testutil.CounterProblem(r.numbers(), r.printed); p != "" {
		t.Fatal(p)
	}
}

// A full scrollback counts the same however much scrolled: the reattach
// asks for as many lines as the copy compares, and when the terminal's
// last line is further back than those, asks again for all of them.
func TestReattachFullBeyondTracked(t *testing.T) {
	const capacity = 4000
	r := newStitchRig(t, capacity)
	r.print(capacity+500, true)
	r.tr.end(true)
	r.print(2*tracked, false)
	if _, refused := r.reattach(capacity, 0); !refused {
		t.Fatalf("a baseline of the last %d lines was taken, %d lines after the terminal's last", tracked, 2*tracked)
	}
	r.tr.end(true)
	if _, refused := r.reattach(capacity, 0); refused {
		t.Fatal("all of the history refused")
	}
	if p := testutil.CounterProblem(r.numbers(), r.printed); p != "" {
		t.Fatal(p)
	}
}

// An outage longer than the session's scrollback: the lines between the
// terminal's last and the session's first are gone from the host too,
// and one marker line stands for them.
func TestReattachLinesLost(t *testing.T) {
	const capacity = 50
	r := newStitchRig(t, capacity)
	r.print(100, true)
	r.tr.end(true)
	r.print(300, false)
	if _, refused := r.reattach(capacity, 0); refused {
		t.Fatal("all of the history refused")
	}
	first := "n" + strconv.Itoa(r.printed-(r.rows-1)-capacity+1) // the daemon's oldest line
	r.print(3, true)
	ls := r.user.Lines(true)
	marks := 0
	for i, l := range ls {
		if strings.HasPrefix(l, "[pty: lines lost while reconnecting") {
			marks++
			if ls[i-1] != "n96" || ls[i+1] != first {
				t.Errorf("the marker is between %q and %q", ls[i-1], ls[i+1])
			}
		}
	}
	if marks != 1 {
		t.Fatalf("%d marker lines:\n%s", marks, strings.Join(ls, "\n"))
	}
	// The next drop, a short one, stitches without a marker.
	r.tr.end(true)
	r.print(10, false)
	if _, refused := r.reattach(capacity, 2); refused {
		t.Fatal("refused")
	}
	if n := strings.Count(strings.Join(r.user.Lines(true), "\n"), "[pty: lines lost"); n != 1 {
		t.Fatalf("%d marker lines after the next reattach", n)
	}
}

// What a reattach asks for: the lines lacking and the slack; all of the
// history after a refused baseline, within the user's --history.
func TestReattachAsks(t *testing.T) {
	for _, c := range []struct {
		name               string
		before, atDrop     int
		full, reask, limit bool
		lines              int
		want               int
		asked              int
		whole              bool
	}{
		{name: "counted", before: 150, atDrop: 100, want: 50 + reattachSlack, asked: 50 + reattachSlack},
		{name: "full", before: 5000, atDrop: 100, full: true, want: tracked, asked: tracked},
		{name: "full, all of it compared", before: 800, atDrop: 100, full: true, want: 800, whole: true},
		{name: "after a refusal", before: 150, atDrop: 100, reask: true, want: -1, whole: true},
		{name: "after a refusal, full", before: 5000, atDrop: 100, full: true, reask: true, want: -1, whole: true},
		{name: "--history", before: 150, atDrop: 100, limit: true, lines: 10, want: 10 + reattachSlack},
		{name: "--history, more than lacking", before: 150, atDrop: 100, limit: true, lines: 100, want: 50 + reattachSlack, asked: 50 + reattachSlack},
		{name: "--history after a refusal", before: 150, atDrop: 100, reask: true, limit: true, lines: 100, want: 100 + reattachSlack},
	} {
		tr := &tracker{known: true, atDrop: c.atDrop, reask: c.reask}
		n := tr.reattach(c.before, c.full, true, c.limit, c.lines)
		if n != c.want || tr.ask.asked != c.asked || tr.ask.whole != c.whole || tr.ask.full != c.full {
			t.Errorf("%s: asks for %d lines, %+v; want %d, asked %d, whole %v", c.name, n, tr.ask, c.want, c.asked, c.whole)
		}
	}
}
