package term

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// PeekANSI is ANSI with CR LF, without the trailing blank lines, and cut
// to its last whole lines.
func TestPeekANSI(t *testing.T) {
	s := New(5, 20, Options{Scrollback: 100})
	for i := 0; i < 12; i++ {
		fmt.Fprintf(s, "\x1b[3%dmline %d\x1b[0m\r\n", i%7+1, i)
	}
	for _, full := range []bool{false, true} {
		want := bytes.ReplaceAll(bytes.TrimRight(s.ANSI(full), "\n"), []byte("\n"), []byte("\r\n"))
		got, last := s.PeekANSI(full, 1<<20)
		if !bytes.Equal(got, want) {
			t.Fatalf("full=%v:\n%q\nwant\n%q", full, got, want)
		}
		if wantLast := bytes.Count(want, []byte("\n")); last != wantLast {
			t.Fatalf("full=%v: last %d, want %d", full, last, wantLast)
		}
	}
	got, last := s.PeekANSI(true, 40)
	if want := "\x1b[0;34mline 10\x1b[0m\r\n\x1b[0;35mline 11\x1b[0m"; string(got) != want || last != 11 {
		t.Fatalf("cut: %q (last %d), want %q (last 11)", got, last, want)
	}
	if got, last := New(5, 20, Options{}).PeekANSI(false, 100); len(got) != 0 || last != 0 {
		t.Fatalf("blank screen: %q %d", got, last)
	}
}

// AppendHistory replayed on a terminal puts the scrollback into its
// scrollback, lines and colours, and leaves its screen blank; a wrapped
// line stays one line wrapped; max keeps the newest lines.
func TestAppendHistory(t *testing.T) {
	s := New(4, 10, Options{Scrollback: 100})
	for i := 0; i < 8; i++ {
		fmt.Fprintf(s, "\x1b[3%dml%d\x1b[0m\r\n", i%7+1, i)
	}
	s.Write([]byte("\x1b[44mabcdefghijKLM\x1b[0m\r\nz\r\n\r\n\r\n\r\n"))
	hist := s.AppendHistory(nil, -1, 4, 1<<20)
	if bytes.Count(hist, []byte("\x1b[0m")) > 4 {
		t.Errorf("a reset per line, where the style does not change: %q", hist)
	}
	replay := func(b []byte) *Screen {
		r := New(4, 10, Options{Scrollback: 100})
		r.Write(b)
		return r
	}
	r := replay(hist)
	if got, want := r.PlainText(true), s.PlainText(true)[:len(s.PlainText(true))-len(s.PlainText(false))]+"\n\n\n\n"; got != want {
		t.Fatalf("replayed:\n%q\nwant\n%q", got, want)
	}
	if !bytes.Equal(r.ANSI(true)[:bytes.Index(r.ANSI(true), []byte("z"))], s.ANSI(true)[:bytes.Index(s.ANSI(true), []byte("z"))]) {
		t.Fatalf("styles differ:\n%q\n%q", r.ANSI(true), s.ANSI(true))
	}
	if !r.hist.at(8).wrapped() {
		t.Errorf("the wrapped line is not wrapped after the replay")
	}
	if got := replay(s.AppendHistory(nil, 3, 4, 1<<20)).PlainText(true); !strings.HasPrefix(got, "abcdefghij\nKLM\nz\n") {
		t.Errorf("3 lines: %q", got)
	}
	if got := s.AppendHistory(nil, 0, 4, 1<<20); len(got) != 0 {
		t.Errorf("no lines: %q", got)
	}
	small := s.AppendHistory(nil, -1, 4, 80)
	if len(small) > 80 || strings.Contains(string(small), "l0") || !strings.Contains(replay(small).PlainText(true), "z\n") {
		t.Errorf("cut to 80 bytes: %d bytes, %q", len(small), small)
	}
}

// AppendHistorySince writes the lines after a number, and a marker for
// those no longer kept or cut to fit; the numbers survive a reflow.
func TestAppendHistorySince(t *testing.T) {
	s := New(3, 60, Options{Scrollback: 5})
	replay := func(b []byte) string {
		r := New(3, 60, Options{Scrollback: 100})
		r.Write(b)
		return strings.TrimRight(r.PlainText(true), "\n")
	}
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(s, "n%d\r\n", i)
	}
	mark := s.HistorySeq() // n1, n2 scrolled off
	if mark != 2 {
		t.Fatalf("HistorySeq %d, want 2", mark)
	}
	if got := s.AppendHistorySince(nil, mark, 3, 1<<20); len(got) != 0 {
		t.Fatalf("nothing new: %q", got)
	}
	for i := 5; i <= 6; i++ {
		fmt.Fprintf(s, "n%d\r\n", i)
	}
	if got := replay(s.AppendHistorySince(nil, mark, 3, 1<<20)); got != "n3\nn4" {
		t.Fatalf("since %d: %q", mark, got)
	}
	for i := 7; i <= 20; i++ {
		fmt.Fprintf(s, "n%d\r\n", i)
	}
	// Kept: n14..n18; n3..n13 are gone.
	want := "[pty: 11 lines not kept; the session keeps 5]\nn14\nn15\nn16\nn17\nn18"
	if got := replay(s.AppendHistorySince(nil, mark, 3, 1<<20)); got != want {
		t.Fatalf("past the scrollback: %q, want %q", got, want)
	}
	full := s.AppendHistorySince(nil, mark, 3, 1<<20)
	for _, max := range []int{len(full) - 1, len(full) + markerMax - 20, 100} {
		cut := s.AppendHistorySince(nil, mark, 3, max)
		got := strings.Split(replay(cut), "\n")
		var lost int
		fmt.Sscanf(got[0], "[pty: %d lines not kept", &lost)
		ok := len(cut) <= max && lost >= 11 && len(got) == 1+16-lost
		for i, l := range got[1:] {
			ok = ok && l == fmt.Sprintf("n%d", 3+lost+i)
		}
		if !ok {
			t.Fatalf("cut to %d bytes: %d bytes, %q", max, len(cut), got)
		}
	}
	before := s.HistorySeq()
	s.Resize(3, 70)
	if s.HistorySeq() != before {
		t.Fatalf("a reflow renumbered the lines: %d, was %d", s.HistorySeq(), before)
	}
	if got := appendThousands(nil, 1234567); string(got) != "1,234,567" {
		t.Fatalf("thousands: %q", got)
	}
}
