package term

import (
	"cmp"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recount is what the history holds, counted afresh from its parts.
func (h *history) recount() int {
	n := cap(h.lines) * histLineSize
	for _, c := range h.chunks {
		n += cap(c.buf)
	}
	for i := range h.n {
		n += apart(*h.at(i))
	}
	return n
}

// checkHistBytes holds the history's running count to a recount and to
// its budget.
func checkHistBytes(t *testing.T, s *Screen, when string) {
	t.Helper()
	if got, want := s.hist.bytes, s.hist.recount(); got != want {
		t.Fatalf("%s: the history counts %d bytes, holds %d", when, got, want)
	}
	if limit := cmp.Or(s.hist.maxBytes, MaxScrollbackBytes); s.hist.bytes > limit {
		t.Fatalf("%s: the history holds %d bytes, over its %d", when, s.hist.bytes, limit)
	}
}

// The scrollback keeps within its byte budget however many lines it may
// hold, dropping the oldest: for plain lines packed in chunks, styled
// lines stored apart (too long for a chunk), lines kept as cells
// (grapheme clusters), wrapped rows of one long line, and through the
// resizes that pull lines back (popNewest) and re-wrap them (reflow).
func TestScrollbackByteBudget(t *testing.T) {
	s := New(10, 1000, Options{Scrollback: 1000000})
	s.hist.maxBytes = 512 << 10
	styled := func(i int) string {
		var b strings.Builder
		for c := range 990 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm%c", c%256, 'a'+c%26)
		}
		fmt.Fprintf(&b, "\x1b[0m %06d\r\n", i)
		return b.String()
	}
	kinds := []struct {
		name string
		line func(i int) string
	}{
		{"plain", func(i int) string { return fmt.Sprintf("%s %06d\r\n", strings.Repeat("p", 900), i) }},
		{"styled", styled},
		{"clusters", func(i int) string { return fmt.Sprintf("%s %06d\r\n", strings.Repeat("e\u0301", 900), i) }},
		{"wrapped", func(i int) string { return fmt.Sprintf("%s %06d\r\n", strings.Repeat("w", 10000), i) }},
		{"empty", func(i int) string { return "\r\n" }},
	}
	for _, k := range kinds {
		for i := range 600 {
			s.Write([]byte(k.line(i)))
			checkHistBytes(t, s, fmt.Sprintf("%s line %d", k.name, i))
		}
		if s.hist.bytes < s.hist.maxBytes*3/4 {
			t.Fatalf("after the %s lines the history holds %d bytes: the budget was not reached", k.name, s.hist.bytes)
		}
	}
	// The newest lines are the ones kept: the last of the empty ones,
	// after the wrapped ones' ending.
	if got := s.PlainText(true); !strings.Contains(got, "w\n 000599\n") {
		t.Fatalf("the newest wrapped line is not in the scrollback:\n%.300q", got[max(len(got)-300, 0):])
	}
	for _, size := range [][2]int{{40, 1000}, {40, 333}, {5, 1000}, {60, 777}} {
		s.Resize(size[0], size[1])
		checkHistBytes(t, s, fmt.Sprintf("resize to %dx%d", size[0], size[1]))
		s.Write([]byte(styled(1)))
		checkHistBytes(t, s, fmt.Sprintf("a line at %dx%d", size[0], size[1]))
	}
	s.Write([]byte("\x1b[3J"))
	checkHistBytes(t, s, "ED 3")
}

// wideLines writes n lines of 100,000 characters to a 1000-column screen
// that may keep a million lines of scrollback, and returns what its heap
// grew by.
func wideLines(n int) uint64 {
	s := New(24, 1000, Options{Scrollback: 1000000})
	before := heapInUse()
	line := []byte(strings.Repeat("x", 100000) + "\r\n")
	for range n {
		s.Write(line)
	}
	after := heapInUse()
	runtime.KeepAlive(s)
	return after - before
}

// TestWideScrollbackMemory writes 100 MB of long lines into a scrollback
// allowed a million lines: the heap stays within MaxScrollbackBytes and a
// little more, where the lines alone would take 100 MB.
func TestWideScrollbackMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory measurement")
	}
	grew := wideLines(1000)
	t.Logf("1000 lines of 100,000 characters: the heap grew by %d bytes", grew)
	if limit := uint64(MaxScrollbackBytes + 4<<20); grew > limit {
		t.Errorf("the heap grew by %d bytes, want at most %d", grew, limit)
	}
}

// BenchmarkWideScrollbackMemory is the heap that 10,000 lines of 100,000
// characters (a gigabyte of text) take in a 1000-column scrollback allowed
// a million lines.
func BenchmarkWideScrollbackMemory(b *testing.B) {
	var n uint64
	for range b.N {
		n = wideLines(10000)
	}
	b.ReportMetric(float64(n), "heap-bytes")
}

// A logical line far longer than maxJoin (output without a newline) is
// re-wrapped in pieces, to the same rows as the text written at the new
// width, and without joining it whole: the reflow allocates what it does
// for the same text in short lines, and a bounded amount more.
func TestReflowLongLine(t *testing.T) {
	var long, short strings.Builder
	for i := 0; long.Len() < 20*maxJoin; i++ {
		item := fmt.Sprintf("%d 漢字 ", i)
		long.WriteString(item)
		short.WriteString(item)
		if i%100 == 99 {
			short.WriteString("\r\n")
		}
	}
	reflow := func(text string, cols int) (*Screen, uint64) {
		s := New(10, 50, Options{Scrollback: 1000000})
		s.Write([]byte(text))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s.Resize(10, cols)
		runtime.ReadMemStats(&after)
		return s, after.TotalAlloc - before.TotalAlloc
	}
	for _, cols := range []int{37, 80} {
		text := long.String() + "\r\nend"
		s, alloc := reflow(text, cols)
		want := New(10, cols, Options{Scrollback: 1000000})
		want.Write([]byte(text))
		if got, w := s.PlainText(true), want.PlainText(true); got != w {
			t.Fatalf("at %d columns the reflowed text differs from the text written there:\n%.200q\nwant\n%.200q", cols, got, w)
		}
		for i := range want.hist.n {
			if g, w := s.hist.at(i).wrapped(), want.hist.at(i).wrapped(); g != w {
				t.Fatalf("at %d columns row %d wrapped=%v, want %v", cols, i, g, w)
			}
		}
		_, shortAlloc := reflow(short.String(), cols)
		if alloc > shortAlloc+8<<20 {
			t.Errorf("the reflow of one long line to %d columns allocated %d bytes, of the same text in short lines %d", cols, alloc, shortAlloc)
		}
	}
}
