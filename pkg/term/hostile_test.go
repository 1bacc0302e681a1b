package term

import (
	"bytes"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// memWatch measures what a piece of hostile output costs: the bytes
// allocated while it is written and the heap still in use afterwards.
// Output is fed in chunks and the allocation is checked after each, so a
// regression fails the test long before it can exhaust the machine.
type memWatch struct {
	t         *testing.T
	base      runtime.MemStats
	allocMax  uint64
	retainMax uint64
}

func watchMem(t *testing.T, allocMax, retainMax uint64) *memWatch {
	t.Helper()
	w := &memWatch{t: t, allocMax: allocMax, retainMax: retainMax}
	runtime.GC()
	runtime.ReadMemStats(&w.base)
	return w
}

// write feeds data to s in chunks of chunk bytes, failing as soon as the
// allocation bound is passed.
func (w *memWatch) write(s *Screen, data []byte, chunk int) {
	w.t.Helper()
	var m runtime.MemStats
	for len(data) > 0 {
		n := min(chunk, len(data))
		s.Write(data[:n])
		data = data[n:]
		runtime.ReadMemStats(&m)
		if got := m.TotalAlloc - w.base.TotalAlloc; got > w.allocMax {
			w.t.Fatalf("allocated %d bytes with %d bytes of output still to write, want at most %d in all", got, len(data), w.allocMax)
		}
	}
}

// done checks the heap still in use, keeping s alive until then.
func (w *memWatch) done(s *Screen) {
	w.t.Helper()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	runtime.KeepAlive(s)
	var grown uint64
	if m.HeapAlloc > w.base.HeapAlloc {
		grown = m.HeapAlloc - w.base.HeapAlloc
	}
	if grown > w.retainMax {
		w.t.Fatalf("heap grew by %d bytes, want at most %d", grown, w.retainMax)
	}
	w.t.Logf("allocated %d bytes, heap grew by %d", m.TotalAlloc-w.base.TotalAlloc, grown)
}

const mb = 1 << 20

// TestCombiningMarksBounded: a letter followed by 100,000 combining marks
// (200 KB of output) once kept a new, longer string per mark, 20 GB in
// all. A cell keeps maxClusterBytes of grapheme and drops the rest.
func TestCombiningMarksBounded(t *testing.T) {
	mark := "\u0301" // 2 bytes in UTF-8
	for _, tc := range []struct {
		name, in string
		chunk    int
		cell     int    // column of the cell that gets the marks
		base     string // its text before the marks
	}{
		{"whole", "a" + strings.Repeat(mark, 100000), 4096, 0, "a"},
		// Odd chunks split the marks' UTF-8 across writes.
		{"split", "a" + strings.Repeat(mark, 100000), 3, 0, "a"},
		{"after wide", "中" + strings.Repeat(mark, 100000), 4096, 0, "中"},
		{"after blank", "\x1b[C" + strings.Repeat(mark, 100000), 4096, 0, " "},
		{"pending wrap", strings.Repeat("x", 9) + "b" + strings.Repeat(mark, 100000), 4096, 9, "b"},
		{"zwj", "👍" + strings.Repeat("\u200d", 100000), 4096, 0, "👍"},
		{"slow path", "\x1b[4h" + "a" + strings.Repeat(mark, 100000), 4096, 0, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(5, 10, Options{})
			w := watchMem(t, 4*mb, 1*mb)
			w.write(s, []byte(tc.in), tc.chunk)
			w.done(s)
			got := s.CellText(s.Cell(0, tc.cell))
			if !strings.HasPrefix(got, tc.base) || len(got) > maxClusterBytes {
				t.Fatalf("cell text %q (%d bytes), want %q and marks, at most %d bytes", got, len(got), tc.base, maxClusterBytes)
			}
			marks := strings.TrimPrefix(got, tc.base)
			m := "\u0301"
			if tc.name == "zwj" {
				m = "\u200d"
			}
			if want := (maxClusterBytes - len(tc.base)) / len(m); marks != strings.Repeat(m, want) {
				t.Fatalf("cell keeps %q, want %d marks", marks, want)
			}
			if len(s.clusters) > maxClusterBytes {
				t.Fatalf("%d clusters for one cell", len(s.clusters))
			}
			// The screen still works afterwards.
			s.Write([]byte("\r\nok"))
			if l := s.Lines(false); !strings.HasPrefix(l[1], "ok") {
				t.Fatalf("after the marks: %q", l)
			}
		})
	}
}

// TestCombiningMarksCapKeepsGraphemes: ordinary clusters fit in a cell.
func TestCombiningMarksCapKeepsGraphemes(t *testing.T) {
	for _, g := range []string{
		"e\u0301",
		"a\u0323\u0302\u0301",
		"👨\u200d👩\u200d👧\u200d👦", // 25 bytes
		"\u0915\u094d\u0937",     // क्ष
	} {
		s := newScreen(2, 10, g+"|")
		var got string
		for x := 0; x < 10; x++ {
			c := s.Cell(0, x)
			if c.Attr&AttrWideCont != 0 {
				continue
			}
			got += s.CellText(c)
		}
		if want := g + "|"; !strings.HasPrefix(got, want) {
			t.Errorf("%q: screen holds %q", g, got)
		}
	}
}

// TestHostileOutputBounded feeds other shapes of output that a careless
// emulator keeps growing with and checks what they cost.
func TestHostileOutputBounded(t *testing.T) {
	var distinct bytes.Buffer
	// More distinct clusters than the table holds: CJK bases times
	// combining marks.
	for i := 0; distinct.Len() < 1<<20; i++ {
		distinct.WriteRune(rune(0x4e00 + i%20000))
		distinct.WriteRune(rune(0x300 + i/20000%112))
		distinct.WriteRune(rune(0x300 + i/(20000*112)%112))
	}
	rep := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, tc := range []struct {
		name  string
		in    string
		alloc uint64 // bytes allocated while writing, at most
		keep  uint64 // heap growth afterwards, at most
	}{
		// The cluster table is bounded by maxClusters short strings;
		// compacting it makes each new cluster cost an allocation.
		{"distinct clusters", distinct.String(), 64 * mb, 12 * mb},
		{"long title", "\x1b]2;" + rep("t", 4<<20) + "\x07", 2 * mb, 1 * mb},
		{"unterminated osc", "\x1b]0;" + rep("t", 4<<20), 2 * mb, 1 * mb},
		{"title stack", rep("\x1b]2;"+rep("t", 60000)+"\x07\x1b[22t", 200), 16 * mb, 2 * mb},
		{"hyperlink", "\x1b]8;;" + rep("u", 4<<20) + "\x1b\\x\x1b]8;;\x1b\\", 2 * mb, 1 * mb},
		{"notification chunks", rep("\x1b]99;d=0;"+rep("n", 1000)+"\x1b\\", 4000), 12 * mb, 1 * mb},
		{"csi params", "\x1b[" + rep("1;", 1<<20) + "m", 1 * mb, 1 * mb},
		{"csi digits", "\x1b[" + rep("9", 1<<20) + "m", 1 * mb, 1 * mb},
		{"sub-params", "\x1b[38" + rep(":2", 1<<20) + "m", 1 * mb, 1 * mb},
		{"dcs", "\x1bP$q" + rep("m", 4<<20) + "\x1b\\", 1 * mb, 1 * mb},
		{"apc", "\x1b_G" + rep("A", 4<<20) + "\x1b\\", 1 * mb, 1 * mb},
		{"pm sos", "\x1b^" + rep("A", 1<<20) + "\x1b\\\x1bX" + rep("A", 1<<20) + "\x1b\\", 1 * mb, 1 * mb},
		{"tab stops", rep("\x1bH\x1b[C", 1<<18), 1 * mb, 1 * mb},
		{"saved cursor", rep("\x1b7\x1b[s\x1b[?1048h", 1<<17), 1 * mb, 1 * mb},
		{"kitty stack", rep("\x1b[>5u", 1<<18), 1 * mb, 1 * mb},
		{"underline colours", func() string {
			var b strings.Builder
			for i := 0; b.Len() < 2<<20; i++ {
				b.WriteString("\x1b[58;2;" + string(rune('0'+i%10)) + ";" + string(rune('0'+i/10%10)) + ";" + string(rune('0'+i/100%10)) + "mx")
			}
			return b.String()
		}(), 4 * mb, 2 * mb},
		{"rep", rep("x\x1b[65535b", 1<<14), 1 * mb, 1 * mb},
		{"insert lines", "\x1b[2;20r" + rep("\x1b[5H\x1b[65535L\x1b[65535M", 1<<14), 1 * mb, 1 * mb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(24, 80, Options{Scrollback: 100, Reply: func([]byte) {}, OnEvent: func(Event) {}})
			w := watchMem(t, tc.alloc, tc.keep)
			w.write(s, []byte(tc.in), 64<<10)
			w.done(s)
			s.Write([]byte("\x1b[m\x1b[H\x1b[2Kok"))
			if l := s.Lines(false); !strings.HasPrefix(l[0], "ok") {
				t.Fatalf("afterwards: %q", l[0])
			}
		})
	}
}

// TestWideScrollbackBounded: scrollback full of the costliest lines (every
// cell a cluster, every cell its own colour) stays within what the
// scrollback limit and the width imply, however much is written.
func TestWideScrollbackBounded(t *testing.T) {
	const rows, cols, lines = 10, 300, 1000
	var b strings.Builder
	for i := 0; i < cols; i++ {
		b.WriteString("\x1b[38;5;" + string(rune('0'+i%10)) + "me\u0301")
	}
	b.WriteString("\r\n")
	line := b.String()
	s := New(rows, cols, Options{Scrollback: lines})
	// Raw lines cost 16 bytes a cell; allow double, plus the grid.
	w := watchMem(t, 1<<30, uint64(2*lines*cols*16+4*rows*cols*16))
	for range 3 * lines {
		s.Write([]byte(line))
	}
	s.Resize(rows, cols-7) // reflow the whole scrollback
	s.Resize(rows, cols)
	w.done(s)
	// Narrowing split every line in two, and the limit counts rows.
	if n := s.ScrollbackLen(); n < lines/2-rows || n > lines {
		t.Fatalf("%d lines of scrollback, want %d to %d", n, lines/2-rows, lines)
	}
	if got := s.Lines(false)[0]; utf8.RuneCountInString(got) != 2*cols {
		t.Fatalf("first row %q", got)
	}
}

// TestRegionScrollCost: inserting, deleting or scrolling many lines in a
// tall scroll region costs one pass over the region, not one per line.
// Row by row, each of these sequences cost the region's height squared
// (16 million row moves here).
func TestRegionScrollCost(t *testing.T) {
	const rows = 4000
	s := New(rows, 20, Options{Scrollback: 100})
	for y := range rows {
		s.Write([]byte("\x1b[" + itoa(y+1) + "Hrow" + itoa(y)))
	}
	s.Write([]byte("\x1b[2;" + itoa(rows) + "r"))
	start := time.Now()
	for i := range 200 {
		s.Write([]byte("\x1b[3H\x1b[3999L\x1b[3998M\x1b[3997S\x1b[3996T"))
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("%d rounds of IL/DL/SU/SD in a %d-row region took %v", i+1, rows, d)
		}
	}
	// The first row is outside the region; the rest was scrolled away.
	if l := s.Lines(false); l[0] != "row0" || l[1] != "" || l[rows-1] != "" {
		t.Fatalf("rows: %q %q %q", l[0], l[1], l[rows-1])
	}
}

// TestRegionScrollOrder: scrolling a region by several lines keeps the
// order of the rows that stay and pushes the rows that leave to the
// scrollback oldest first.
func TestRegionScrollOrder(t *testing.T) {
	s := newScreen(6, 10, "a\r\nb\r\nc\r\nd\r\ne\r\nf\x1b[2;5r\x1b[2S")
	if got := text(s); got != "a|d|e|||f" {
		t.Fatalf("SU 2: %q", got)
	}
	if got := strings.Join(s.Lines(true)[:2], "|"); got != "b|c" {
		t.Fatalf("scrollback %q", got)
	}
	s.Write([]byte("\x1b[2T"))
	if got := text(s); got != "a|||d|e|f" {
		t.Fatalf("SD 2: %q", got)
	}
	s.Write([]byte("\x1b[3H\x1b[2M"))
	if got := text(s); got != "a||e|||f" {
		t.Fatalf("DL 2: %q", got)
	}
	s.Write([]byte("\x1b[2H\x1b[2L"))
	if got := text(s); got != "a||||e|f" {
		t.Fatalf("IL 2: %q", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestClusterTableCompacts: once the session has shown maxClusters
// distinct clusters, clusters no cell refers to any more make room for
// new ones, so combining marks keep working; the ones still on the
// screen and in the scrollback keep their text.
func TestClusterTableCompacts(t *testing.T) {
	s := New(5, 20, Options{Scrollback: 3})
	// Distinct clusters, most of which scroll away for good.
	var b strings.Builder
	for i := 0; i < maxClusters+100; i++ {
		b.WriteRune(rune(0x4e00 + i%20000))
		b.WriteRune(rune(0x300 + i/20000))
		if i%10 == 9 {
			b.WriteString("\r\n")
		}
	}
	s.Write([]byte(b.String()))
	before := s.Lines(true)
	s.Write([]byte("\x1b[Hx\u0301"))
	if got := s.CellText(s.Cell(0, 0)); got != "x\u0301" {
		t.Fatalf("new cluster after %d distinct ones: %q", maxClusters+100, got)
	}
	after := s.Lines(true)
	// Only the first character of the screen changed (and the right
	// half of the wide one it overwrote became a space).
	n := len(before) - 5
	before[n] = "x\u0301 " + string([]rune(before[n])[2:])
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("text changed by compaction:\n%q\n%q", before, after)
	}
	// At most the cells of screen and scrollback when the table was
	// compacted, and the clusters added since.
	if len(s.clusters) > 8*20+100+1 {
		t.Fatalf("%d clusters kept for %d cells", len(s.clusters), 8*20)
	}
}

// timePerOp is the CPU-independent part of a cost check: the time one
// repetition of seq takes, written n times on a fresh 50x200 screen.
func timePerOp(seq string, n int) time.Duration {
	s := New(50, 200, Options{})
	data := []byte(strings.Repeat(seq, n))
	start := time.Now()
	s.Write(data)
	return time.Since(start) / time.Duration(n)
}

// TestScreenOpsCost: sequences that touch the whole screen cost about
// what filling it costs (DECALN, the reference measured alongside so that
// the machine's load cancels out), not several times that. REP printed a
// screenful a character at a time (18 times DECALN here), and ED 2 on an
// empty screen scanned every cell for text (twice DECALN).
func TestScreenOpsCost(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("timing")
	}
	fill := timePerOp("\x1b#8", 20000)
	for _, tc := range []struct {
		seq   string
		n     int
		ratio float64 // at most this many DECALNs
	}{
		{"x\x1b[65535b", 5000, 5},
		{"\x1b[2J", 50000, 0.25},
	} {
		// The best of three, against a fresh reference each time.
		best := 1e9
		for range 3 {
			fill = min(fill, timePerOp("\x1b#8", 20000))
			best = min(best, float64(timePerOp(tc.seq, tc.n))/float64(fill))
		}
		if best > tc.ratio {
			t.Errorf("%q costs %.2f times a DECALN (%v), want at most %.2f", tc.seq, best, fill, tc.ratio)
		}
	}
}

// TestAltScreenKept: a program that keeps entering and leaving the
// alternate screen does not allocate a screen each time; the grid kept
// between visits starts cleared, and is let go of once the main screen has
// scrolled a screenful, or on a resize.
func TestAltScreenKept(t *testing.T) {
	s := New(50, 200, Options{})
	s.Write([]byte("\x1b[?1049h\x1b[?1049l"))
	data := []byte(strings.Repeat("\x1b[?1049hvim\x1b[?1049l\x1b[?47h\x1b[?47l\x1b[?1047h\x1b[?1047l", 10000))
	w := watchMem(t, 64<<10, 64<<10)
	w.write(s, data, 64<<10)
	w.done(s)
	for _, mode := range []string{"47", "1047", "1049"} {
		s.Write([]byte("\x1b[?" + mode + "hleft behind\x1b[?" + mode + "l\x1b[?" + mode + "h"))
		if got := text(s); got != "" {
			t.Errorf("re-entering with %s: %q", mode, got)
		}
		s.Write([]byte("\x1b[?" + mode + "l"))
	}
	if s.alt.lines == nil {
		t.Fatal("the alternate grid was let go of at once")
	}
	s.Write([]byte("\x1b[50H" + strings.Repeat("\n", 49)))
	if s.alt.lines == nil {
		t.Fatal("the alternate grid was let go of before a screenful scrolled")
	}
	s.Write([]byte("\n"))
	if s.alt.lines != nil {
		t.Fatal("the alternate grid is kept after a screenful scrolled")
	}
	s.Write([]byte("\x1b[?1049h\x1b[?1049l"))
	s.Resize(40, 100)
	if s.alt.lines != nil {
		t.Fatal("the alternate grid is kept across a resize")
	}
	s.Write([]byte("\x1b[?1049hx"))
	check(t, s)
}
