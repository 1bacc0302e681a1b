package web

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// overlap finds the longest run at the start of a reconnect's history
// that the emulator's history ends with.
func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		got, have string
		want      int
	}{
		{"", "a b", 0},
		{"a b", "", 0},
		{"c d e", "a b c d", 2},
		{"a b c", "a b c", 3},
		{"x y", "a b c", 0},
		{"b b b c", "a b b", 2},
		{"a b a b c", "x a b a b", 4},
		{"a a a", "a a a a a", 3},
		{"b c", "a b c d b c", 2},
	} {
		if n := overlap(strings.Fields(c.got), strings.Fields(c.have)); n != c.want {
			t.Errorf("overlap(%q, %q) = %d, want %d", c.got, c.have, n, c.want)
		}
	}
}

// A line the emulator lacks further back (an outage longer than the
// daemon's scrollback) does not make all of a baseline new: the match is
// of the emulator's last lines.
func TestOverlapAfterGap(t *testing.T) {
	var got, have []string
	for i := 1; i <= 300; i++ {
		got = append(got, "n"+strconv.Itoa(i))
		if i < 20 || i > 30 && i <= 200 {
			have = append(have, "n"+strconv.Itoa(i))
		}
	}
	if n := overlap(got, have); n != 200 {
		t.Fatalf("overlap = %d, want 200", n)
	}
}

// The reconnect that lost lines: the emulator's history ends at n100, the
// count asked for the 64 lines of slack beyond those it lacked, and more
// than that scrolled before the PEEK, so the baseline begins after n101.
// dedupe says so (ok false) rather than draw it with n101 and the next
// ones missing; with all of the history it draws every line once.
func TestDedupeBaselineAfterLastLine(t *testing.T) {
	const rows, cols = 5, 20
	emu := term.New(rows, cols, term.Options{Scrollback: 1000})
	daemon := term.New(rows, cols, term.Options{Scrollback: 1000})
	for i := 1; i <= 104; i++ {
		fmt.Fprintf(emu, "n%d\r\n", i)
	}
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(daemon, "n%d\r\n", i)
	}
	st := stitch{again: true, fresh: true, win: stitchSlack, asked: 10 + stitchSlack, known: true, atDrop: 100}
	st.tail = emu.Lines(true)[:emu.ScrollbackLen()]
	if got := st.tail[len(st.tail)-1]; got != "n100" {
		t.Fatalf("the emulator's history ends with %q", got)
	}
	baseline := func(n int) []byte {
		return append(daemon.AppendHistory(nil, n, rows, proto.MaxPayload), daemon.Redraw()...)
	}
	if _, _, ok := st.dedupe(baseline(st.asked), emu); ok {
		t.Fatal("a baseline from n223 on was taken after n100")
	}
	st.all, st.win, st.asked, st.reasked = true, -1, 0, true
	p, _, ok := st.dedupe(baseline(-1), emu)
	if !ok {
		t.Fatal("all of the history refused")
	}
	emu.Write(proto.RedrawInPlace(nil, p, rows))
	var ns []string
	for _, l := range emu.Lines(true) {
		if l != "" {
			ns = append(ns, l)
		}
	}
	if p := testutil.CounterProblem(ns, 300); p != "" {
		t.Fatal(p)
	}
}

// An outage longer than the session's scrollback: all of it came, none
// of it the emulator's, and one marker line stands for the lines between,
// gone from the host too.
func TestDedupeLinesLost(t *testing.T) {
	const rows, cols, capacity = 5, 40, 50
	emu := term.New(rows, cols, term.Options{Scrollback: 1000})
	daemon := term.New(rows, cols, term.Options{Scrollback: capacity})
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(emu, "n%d\r\n", i)
	}
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(daemon, "n%d\r\n", i)
	}
	st := stitch{again: true, fresh: true, all: true, full: true, win: -1, known: true, atDrop: 96}
	st.tail = emu.Lines(true)[:emu.ScrollbackLen()]
	p, _, ok := st.dedupe(append(daemon.AppendHistory(nil, -1, rows, proto.MaxPayload), daemon.Redraw()...), emu)
	if !ok {
		t.Fatal("all of the history refused")
	}
	emu.Write(proto.RedrawInPlace(nil, p, rows))
	ls := emu.Lines(true)
	marks := 0
	for i, l := range ls {
		if l == client.LostMarker {
			marks++
			if ls[i-1] != "n96" || ls[i+1] != "n347" {
				t.Errorf("the marker is between %q and %q", ls[i-1], ls[i+1])
			}
		}
	}
	if marks != 1 {
		t.Fatalf("%d marker lines:\n%s", marks, strings.Join(ls, "\n"))
	}
}
