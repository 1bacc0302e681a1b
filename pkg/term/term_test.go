package term

import (
	"bytes"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

func newScreen(rows, cols int, in string) *Screen {
	s := New(rows, cols, Options{})
	s.Write([]byte(in))
	return s
}

// text returns the visible rows joined by "|" with trailing empty rows
// dropped, to keep tables short.
func text(s *Screen) string {
	return strings.TrimRight(strings.Join(s.Lines(false), "|"), "|")
}

func TestCursorMotion(t *testing.T) {
	cases := []struct {
		in       string
		row, col int
	}{
		{"", 0, 0},
		{"abc", 0, 3},
		{"\x1b[5;10H", 4, 9},
		{"\x1b[5;10f", 4, 9},
		{"\x1b[H", 0, 0},
		{"\x1b[0;0H", 0, 0},
		{"\x1b[99;99H", 9, 19},
		{"\x1b[5;5H\x1b[2A", 2, 4},
		{"\x1b[5;5H\x1b[A", 3, 4},
		{"\x1b[5;5H\x1b[0A", 3, 4},
		{"\x1b[5;5H\x1b[99A", 0, 4},
		{"\x1b[5;5H\x1b[3B", 7, 4},
		{"\x1b[5;5H\x1b[99B", 9, 4},
		{"\x1b[5;5H\x1b[3C", 4, 7},
		{"\x1b[5;5H\x1b[99C", 4, 19},
		{"\x1b[5;5H\x1b[3D", 4, 1},
		{"\x1b[5;5H\x1b[99D", 4, 0},
		{"\x1b[5;5H\x1b[2E", 6, 0},
		{"\x1b[5;5H\x1b[2F", 2, 0},
		{"\x1b[5;5H\x1b[12G", 4, 11},
		{"\x1b[5;5H\x1b[12`", 4, 11},
		{"\x1b[5;5H\x1b[3a", 4, 7},
		{"\x1b[5;5H\x1b[8d", 7, 4},
		{"\x1b[5;5H\x1b[2e", 6, 4},
		{"\x1b[5;5H\r", 4, 0},
		{"\x1b[5;5H\n", 5, 4},
		{"\x1b[5;5H\x0b\x0c", 6, 4},
		{"\x1b[5;5H\b\b", 4, 2},
		{"\b\b", 0, 0},
		{"\x1b[5;5H\x1bD", 5, 4},
		{"\x1b[5;5H\x1bE", 5, 0},
		{"\x1b[5;5H\x1bM", 3, 4},
		{"\x1b[3;6r\x1b[5;1H\x1b[9B", 5, 0},   // CUD stops at the bottom margin
		{"\x1b[3;6r\x1b[4;1H\x1b[9A", 2, 0},   // CUU stops at the top margin
		{"\x1b[3;6r\x1b[8;1H\x1b[9B", 9, 0},   // below the region: screen edge
		{"\x1b[3;6r\x1b[?6h", 2, 0},           // origin mode homes to the region
		{"\x1b[3;6r\x1b[?6h\x1b[2;3H", 3, 2},  // CUP relative to the region
		{"\x1b[3;6r\x1b[?6h\x1b[99;3H", 5, 2}, // clamped to the region
		{strings.Repeat("x", 20), 0, 19},      // pending wrap keeps the cursor on the last column
		{strings.Repeat("x", 21), 1, 1},
		{"\x1b[5;5H\x1b7\x1b[H\x1b8", 4, 4},
		{"\x1b[5;5H\x1b[s\x1b[H\x1b[u", 4, 4},
		{"\x1b[2;3H\x1b[6n", 1, 2},
	}
	for _, tc := range cases {
		s := newScreen(10, 20, tc.in)
		row, col, _ := s.Cursor()
		if row != tc.row || col != tc.col {
			t.Errorf("%q: cursor %d,%d, want %d,%d", tc.in, row, col, tc.row, tc.col)
		}
	}
}

func TestText(t *testing.T) {
	cases := []struct {
		name       string
		rows, cols int
		in, want   string
	}{
		{"plain", 3, 10, "hello\r\nworld", "hello|world"},
		{"wrap", 3, 5, "abcdefgh", "abcde|fgh"},
		{"pending wrap then CR", 3, 5, "abcde\rX", "Xbcde"},
		{"scroll", 2, 5, "a\r\nb\r\nc", "b|c"},
		{"ED0", 3, 5, "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[J", "aaaaa|bb"},
		{"ED1", 3, 5, "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[1J", "|   bb|ccccc"},
		{"ED2", 3, 5, "aaaaa\r\nbbbbb\x1b[2J", ""},
		{"EL0", 1, 5, "abcde\x1b[1;3H\x1b[K", "ab"},
		{"EL1", 1, 5, "abcde\x1b[1;3H\x1b[1K", "   de"},
		{"EL2", 1, 5, "abcde\x1b[2K", ""},
		{"ICH", 1, 6, "abcdef\x1b[1;2H\x1b[2@", "a  bcd"},
		{"DCH", 1, 6, "abcdef\x1b[1;2H\x1b[2P", "adef"},
		{"ECH", 1, 6, "abcdef\x1b[1;2H\x1b[2X", "a  def"},
		{"IL", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;1H\x1b[L", "a||b|c"},
		{"DL", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;1H\x1b[2M", "a|d"},
		{"IL outside region", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;3r\x1b[4;1H\x1b[L", "a|b|c|d"},
		{"IL in region", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;3r\x1b[2;1H\x1b[L", "a||b|d"},
		{"SU", 3, 3, "a\r\nb\r\nc\x1b[S", "b|c"},
		{"SD", 3, 3, "a\r\nb\r\nc\x1b[T", "|a|b"},
		{"region scroll", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;3r\x1b[3;1H\nX", "a|c|X|d"},
		{"RI at top", 3, 3, "a\r\nb\x1b[H\x1bMX", "X|a|b"},
		{"RI in region", 4, 3, "a\r\nb\r\nc\r\nd\x1b[2;3r\x1b[2;1H\x1bMX", "a|X|b|d"},
		{"tabs", 1, 30, "a\tb\tc", "a       b       c"},
		{"tab at end", 1, 10, "a\t\t\tb", "a        b"},
		{"CHT", 1, 30, "a\x1b[2Ib", "a               b"},
		{"CBT", 1, 30, "\x1b[20G\x1b[2Zb", "        b"},
		{"HTS/TBC", 1, 30, "\x1b[3g\x1b[4G\x1bH\ra\tb", "a  b"},
		{"TBC 0", 1, 30, "\x1b[9G\x1b[g\ra\tb", "a" + strings.Repeat(" ", 15) + "b"},
		{"REP", 1, 10, "ab\x1b[3b", "abbbb"},
		// REP repeats only the character straight before it: any
		// control sequence in between, REP included, cancels it.
		{"REP after REP", 1, 20, "+\x1b[1b\x1b[10b", "++"},
		{"REP after SGR", 1, 20, "+\x1b[m\x1b[3b", "+"},
		{"REP after private CSI", 1, 20, "+\x1b[?5b\x1b[3b", "+"},
		{"REP after OSC", 1, 20, "+\x1b]2;t\x07\x1b[3b", "+"},
		{"REP after DCS", 1, 20, "+\x1bP$qm\x1b\\\x1b[3b", "+"},
		{"REP after APC", 1, 20, "+\x1b_x\x1b\\\x1b[3b", "+"},
		{"REP after PM", 1, 20, "+\x1b^x\x1b\\\x1b[3b", "+"},
		{"REP after DCS ended by C1 ST", 1, 20, "+\x1bP$qm\x9c\x1b[3b", "+"},
		{"REP after APC ended by C1 ST", 1, 20, "+\x1b_x\x9c\x1b[3b", "+"},
		{"REP after ESC", 1, 20, "+\x1b=\x1b[3b", "+"},
		{"REP after C0", 1, 20, "+\x07\x1b[3b", "+"},
		{"REP of wide", 1, 20, "中\x1b[2b\x1b[2b", "中中中"},
		{"DECALN", 2, 3, "\x1b#8", "EEE|EEE"},
		{"IRM", 1, 10, "abcd\x1b[1;2H\x1b[4hXY\x1b[4lZ", "aXYZcd"},
		{"no autowrap", 2, 5, "\x1b[?7labcdefg", "abcdg"},
		{"DEC graphics", 1, 10, "\x1b(0lqk\x1b(Bx", "┌─┐x"},
		{"SO/SI", 1, 10, "\x1b)0a\x0eq\x0fq", "a─q"},
		{"wide", 1, 10, "中文x", "中文x"},
		{"wide wraps", 2, 5, "abcd中", "abcd|中"},
		{"wide overwritten", 1, 10, "中文\x1b[1;2Hx", " x文"},
		{"wide first half overwritten", 1, 10, "中文\x1b[1;1Hx", "x 文"},
		{"DCH on continuation erases the character", 1, 12, "ab中文\x1b[1;4H\x1b[P", "ab 文"},
		{"DCH before a wide char keeps it", 1, 12, "ab中文\x1b[1;1H\x1b[2P", "中文"},
		{"DCH splitting a wide char", 1, 12, "ab中文\x1b[1;3H\x1b[P", "ab 文"},
		{"ICH before a wide char keeps it", 1, 12, "ab中文\x1b[1;3H\x1b[@", "ab 中文"},
		{"EL from a continuation", 1, 12, "ab中文\x1b[1;4H\x1b[K", "ab"},
		{"EL 1 ending on a first half", 1, 12, "ab中文x\x1b[1;5H\x1b[1K", "      x"},
		{"combining", 1, 10, "e\u0301a\u0308", "e\u0301a\u0308"},
		{"combining after wide", 1, 10, "中\u0301x", "中\u0301x"},
		{"emoji", 1, 10, "😀x", "😀x"},
		{"invalid utf8", 1, 10, "a\xffb", "a\ufffdb"},
		{"C1 bytes are not controls", 1, 10, "a\x9bb", "a\ufffdb"},
		{"DEL ignored", 1, 10, "a\x7fb", "ab"},
		{"unknown sequences ignored", 1, 10, "a\x1b[?999h\x1b[99;99;99z\x1bP1;2qdata\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\b", "ab"},
		{"CAN aborts", 1, 10, "a\x1b[3\x18b", "ab"},
		{"RIS", 2, 10, "abc\x1b[31m\x1bcx", "x"},
		{"ESC in CSI restarts", 1, 10, "\x1b[3\x1b[1mx", "x"},
		{"C0 inside CSI", 2, 10, "ab\x1b[\r2Cx", "abx"},
	}
	for _, tc := range cases {
		s := newScreen(tc.rows, tc.cols, tc.in)
		if got := text(s); got != tc.want {
			t.Errorf("%s: %q\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestSGR(t *testing.T) {
	cases := []struct {
		in   string
		fg   Color
		bg   Color
		attr Attr
	}{
		{"\x1b[31m", BasicColor(1), 0, 0},
		{"\x1b[91m", BasicColor(9), 0, 0},
		{"\x1b[42m", 0, BasicColor(2), 0},
		{"\x1b[103m", 0, BasicColor(11), 0},
		{"\x1b[38;5;1m", IndexedColor(1), 0, 0},
		{"\x1b[48;5;200m", 0, IndexedColor(200), 0},
		{"\x1b[38:5:100m", IndexedColor(100), 0, 0},
		{"\x1b[38;2;1;2;3m", RGBColor(1, 2, 3), 0, 0},
		{"\x1b[38:2::1:2:3m", RGBColor(1, 2, 3), 0, 0},
		{"\x1b[38:2:1:2:3m", RGBColor(1, 2, 3), 0, 0},
		{"\x1b[48:2::10:20:30;1m", 0, RGBColor(10, 20, 30), AttrBold},
		{"\x1b[38;2;1;2;3;48;5;7;4m", RGBColor(1, 2, 3), IndexedColor(7), Attr(0).withUnderline(UnderlineSingle)},
		{"\x1b[1;2;3;5;7;8;9m", 0, 0, AttrBold | AttrDim | AttrItalic | AttrBlink | AttrReverse | AttrHidden | AttrStrike},
		{"\x1b[1;2m\x1b[22m", 0, 0, 0},
		{"\x1b[4:3m", 0, 0, Attr(0).withUnderline(UnderlineCurly)},
		{"\x1b[4:5m", 0, 0, Attr(0).withUnderline(UnderlineDashed)},
		{"\x1b[4:3m\x1b[4:0m", 0, 0, 0},
		{"\x1b[21m", 0, 0, Attr(0).withUnderline(UnderlineDouble)},
		{"\x1b[4m\x1b[24m", 0, 0, 0},
		{"\x1b[31;42m\x1b[39;49m", 0, 0, 0},
		{"\x1b[1;31m\x1b[m", 0, 0, 0},
		{"\x1b[1;31m\x1b[0m", 0, 0, 0},
		{"\x1b[3m\x1b[23m\x1b[5m\x1b[25m\x1b[7m\x1b[27m\x1b[8m\x1b[28m\x1b[9m\x1b[29m", 0, 0, 0},
		{"\x1b[53m", 0, 0, AttrOverline},
		{"\x1b[58:2::1:2:3;1m", 0, 0, AttrBold}, // the underline colour is separate
		{"\x1b[38;5;300m\x1b[1m", 0, 0, AttrBold},
		{"\x1b[38;2;999;2;3m", RGBColor(255, 2, 3), 0, 0},
		{"\x1b[38;5m\x1b[1m", 0, 0, AttrBold},
	}
	for _, tc := range cases {
		s := newScreen(1, 10, tc.in+"x")
		c := s.Cell(0, 0)
		if c.R != 'x' || c.Fg != tc.fg || c.Bg != tc.bg || c.Attr != tc.attr {
			t.Errorf("%q: got %q fg=%08x bg=%08x attr=%04x, want fg=%08x bg=%08x attr=%04x",
				tc.in, c.R, c.Fg, c.Bg, c.Attr, tc.fg, tc.bg, tc.attr)
		}
	}
}

func TestUnderlineColour(t *testing.T) {
	red := RGBColor(255, 0, 0)
	cases := []struct {
		in   string
		ul   Color
		attr Attr
		sgr  string // the DECRQSS answer for the pen, as ANSI and Redraw write it
	}{
		{"\x1b[4;58;5;196m", IndexedColor(196), Attr(0).withUnderline(UnderlineSingle), "0;4;58;5;196"},
		{"\x1b[58;2;255;0;0;4:3m", red, Attr(0).withUnderline(UnderlineCurly), "0;4:3;58;2;255;0;0"},
		{"\x1b[58:5:2;1m", IndexedColor(2), AttrBold, "0;1;58;5;2"},
		{"\x1b[58:2::255:0:0m", red, 0, "0;58;2;255;0;0"},
		{"\x1b[58:2:255:0:0m", red, 0, "0;58;2;255;0;0"},
		{"\x1b[58;5;2m\x1b[59m", 0, 0, "0"},
		{"\x1b[58;5;2m\x1b[0m", 0, 0, "0"},
		{"\x1b[4;58;5;2m\x1b[24m", IndexedColor(2), 0, "0;58;5;2"},
		{"\x1b[58;5;300;1m", 0, AttrBold, "0;1"},
		{"\x1b[58;5m", 0, 0, "0"},
	}
	for _, tc := range cases {
		var reply []byte
		s := New(1, 10, Options{Reply: func(b []byte) { reply = append(reply, b...) }})
		s.Write([]byte(tc.in + "x\x1bP$qm\x1b\\"))
		c := s.Cell(0, 0)
		if c.R != 'x' || s.UnderlineColor(c) != tc.ul || c.Attr != tc.attr || c.Fg != 0 || c.Bg != 0 {
			t.Errorf("%q: got %q ul=%08x attr=%04x, want ul=%08x attr=%04x", tc.in, c.R, s.UnderlineColor(c), c.Attr, tc.ul, tc.attr)
		}
		if want := "\x1bP1$r" + tc.sgr + "m\x1b\\"; string(reply) != want {
			t.Errorf("%q: DECRQSS m = %q, want %q", tc.in, reply, want)
		}
	}
	// The colour is interned: the same colour is the same index, and it
	// survives the scrollback, ANSI and Redraw.
	s := newScreen(2, 20, "\x1b[4;58;5;1ma\x1b[58;2;1;2;3mb\x1b[58;5;1mc\x1b[m d\r\n")
	if a, c := s.Cell(0, 0), s.Cell(0, 2); a.ul != c.ul || len(s.ulColors) != 3 {
		t.Errorf("indices %d %d, table %v", a.ul, c.ul, s.ulColors)
	}
	want := "\x1b[0;4;58;5;1ma\x1b[0;4;58;2;1;2;3mb\x1b[0;4;58;5;1mc\x1b[0m d\n"
	if got := string(s.ANSI(false)); !strings.HasPrefix(got, want) {
		t.Errorf("ANSI = %q, want prefix %q", got, want)
	}
	s.Write([]byte("\n"))
	if s.ScrollbackLen() != 1 {
		t.Fatalf("scrollback %d lines", s.ScrollbackLen())
	}
	if got := string(s.ANSI(true)); !strings.HasPrefix(got, want) {
		t.Errorf("ANSI from the scrollback = %q, want prefix %q", got, want)
	}
	s.Resize(3, 20) // pulls the line back from the scrollback
	b := redrawInto(s)
	assertSameScreen(t, s, b)
	if c := b.Cell(0, 1); b.UnderlineColor(c) != RGBColor(1, 2, 3) {
		t.Errorf("after a round trip through the scrollback and Redraw: ul=%08x", b.UnderlineColor(c))
	}
}

func TestUnderlineColourTableBounded(t *testing.T) {
	s := New(2, 10, Options{Scrollback: -1})
	var b bytes.Buffer
	for i := range maxULColors + 10 {
		fmt.Fprintf(&b, "\x1b[58;2;%d;%d;%dmx", i>>16, i>>8&255, i&255)
	}
	s.Write(b.Bytes())
	if len(s.ulColors) != maxULColors+1 {
		t.Errorf("table has %d entries", len(s.ulColors))
	}
}

func TestEraseKeepsBackground(t *testing.T) {
	s := newScreen(2, 5, "abcde\x1b[44m\x1b[1;3H\x1b[K")
	for x, want := range []Color{0, 0, BasicColor(4), BasicColor(4), BasicColor(4)} {
		if c := s.Cell(0, x); c.Bg != want {
			t.Errorf("cell %d bg %08x want %08x", x, c.Bg, want)
		}
	}
	s = newScreen(2, 5, "\x1b[41m\r\n\x1b[1m\n")
	if c := s.Cell(1, 0); c.Bg != BasicColor(1) || c.Attr != 0 || c.R != 0 {
		t.Errorf("scrolled-in line %+v, want blank with red background", c)
	}
}

func TestWideCells(t *testing.T) {
	s := newScreen(1, 6, "中x")
	if c := s.Cell(0, 0); c.R != '中' || c.Attr&AttrWide == 0 {
		t.Errorf("cell 0 = %+v", c)
	}
	if c := s.Cell(0, 1); c.Attr&AttrWideCont == 0 {
		t.Errorf("cell 1 = %+v", c)
	}
	if _, col, _ := s.Cursor(); col != 3 {
		t.Errorf("cursor col %d, want 3", col)
	}
	// A wide character in the last column of a line with autowrap off
	// goes into the last two columns.
	s = newScreen(1, 4, "\x1b[?7labcd中")
	if got := text(s); got != "ab中" {
		t.Errorf("got %q", got)
	}
	// Deleting half a wide character blanks the other half.
	s = newScreen(1, 6, "a中b\x1b[1;3H\x1b[P")
	if got := text(s); got != "a b" {
		t.Errorf("DCH on continuation: %q", got)
	}
}

func TestModes(t *testing.T) {
	def := Modes{Autowrap: true}
	cases := []struct {
		in   string
		want func(m *Modes)
	}{
		{"", func(m *Modes) {}},
		{"\x1b[?1h", func(m *Modes) { m.AppCursor = true }},
		{"\x1b[?1h\x1b[?1l", func(m *Modes) {}},
		{"\x1b=", func(m *Modes) { m.AppKeypad = true }},
		{"\x1b=\x1b>", func(m *Modes) {}},
		{"\x1b[?2004h", func(m *Modes) { m.BracketedPaste = true }},
		{"\x1b[?9h", func(m *Modes) { m.MouseX10 = true }},
		{"\x1b[?1000h", func(m *Modes) { m.Mouse1000 = true }},
		{"\x1b[?1000h\x1b[?1002h", func(m *Modes) { m.Mouse1002 = true }},
		{"\x1b[?1003;1006h", func(m *Modes) { m.Mouse1003 = true; m.MouseSGR1006 = true }},
		{"\x1b[?1003h\x1b[?1003l", func(m *Modes) {}},
		{"\x1b[?1004h", func(m *Modes) { m.FocusEvents = true }},
		{"\x1b[?25l", func(m *Modes) { m.CursorHidden = true }},
		{"\x1b[4 q", func(m *Modes) { m.CursorShape = 4 }},
		{"\x1b[4 q\x1b[ q", func(m *Modes) {}},
		{"\x1b[?2026h", func(m *Modes) { m.SyncOutput = true }},
		{"\x1b[?6h", func(m *Modes) { m.Origin = true }},
		{"\x1b[?7l", func(m *Modes) { m.Autowrap = false }},
		{"\x1b[4h", func(m *Modes) { m.Insert = true }},
		{"\x1b[?1049h", func(m *Modes) { m.AltScreen = true }},
		{"\x1b[?1049h\x1b[?1049l", func(m *Modes) {}},
		{"\x1b[?47h", func(m *Modes) { m.AltScreen = true }},
		{"\x1b[?1047h", func(m *Modes) { m.AltScreen = true }},
		{"\x1b[>5u", func(m *Modes) { m.KittyKeyboardFlags = 5 }},
		{"\x1b[>5u\x1b[>1u", func(m *Modes) { m.KittyKeyboardFlags = 1 }},
		{"\x1b[>5u\x1b[>1u\x1b[<u", func(m *Modes) { m.KittyKeyboardFlags = 5 }},
		{"\x1b[>5u\x1b[<9u", func(m *Modes) {}},
		{"\x1b[=3u", func(m *Modes) { m.KittyKeyboardFlags = 3 }},
		{"\x1b[>1u\x1b[=4;2u", func(m *Modes) { m.KittyKeyboardFlags = 5 }},
		{"\x1b[>7u\x1b[=2;3u", func(m *Modes) { m.KittyKeyboardFlags = 5 }},
		{"\x1b[>7u\x1b[?1049h", func(m *Modes) { m.AltScreen = true }}, // separate stacks
		{"\x1b[>7u\x1b[?1049h\x1b[>2u\x1b[?1049l", func(m *Modes) { m.KittyKeyboardFlags = 7 }},
		{"\x1b[?1h\x1b=\x1b[?25l\x1b[?6h\x1b[4h\x1b[!p", func(m *Modes) {}},
		{"\x1b[?1h\x1b[?2004h\x1b[?1000h\x1bc", func(m *Modes) {}},
	}
	for _, tc := range cases {
		s := newScreen(5, 10, tc.in)
		want := def
		tc.want(&want)
		if got := s.Modes(); got != want {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, want)
		}
	}
}

func TestAltScreen(t *testing.T) {
	s := newScreen(3, 10, "main\x1b[2;3H\x1b[?1049hALT")
	if got := text(s); got != "|  ALT" {
		t.Errorf("alt screen text %q", got)
	}
	s.Write([]byte("\x1b[?1049l"))
	if got := text(s); got != "main" {
		t.Errorf("main screen text after exit %q", got)
	}
	if row, col, _ := s.Cursor(); row != 1 || col != 2 {
		t.Errorf("cursor not restored: %d,%d", row, col)
	}
	// Re-entering clears the alternate screen.
	s.Write([]byte("\x1b[?1049h"))
	if got := text(s); got != "" {
		t.Errorf("alt screen not cleared: %q", got)
	}
	// Scrolling on the alternate screen does not feed the scrollback.
	s.Write([]byte("\r\n\r\n\r\n\r\n"))
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("alt screen scrolled into history: %d", n)
	}
	// 47 does not save the cursor.
	s = newScreen(3, 10, "\x1b[2;3H\x1b[?47h\x1b[3;5H\x1b[?47l")
	if row, col, _ := s.Cursor(); row != 2 || col != 4 {
		t.Errorf("47 moved the cursor: %d,%d", row, col)
	}
}

func TestReplies(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x1b[c", "\x1b[?62;22c"},
		{"\x1b[0c", "\x1b[?62;22c"},
		{"\x1b[>c", "\x1b[>0;382;0c"},
		{"\x1b[5n", "\x1b[0n"},
		{"\x1b[3;4H\x1b[6n", "\x1b[3;4R"},
		{"\x1b[2;5r\x1b[?6h\x1b[2;2H\x1b[6n", "\x1b[2;2R"},
		{"\x1b[>q", "\x1bP>|pty(1.2.3)\x1b\\"},
		{"\x1b[>0q", "\x1bP>|pty(1.2.3)\x1b\\"},
		{"\x1b]10;?\x07", "\x1b]10;rgb:ffff/ffff/ffff\x07"},
		{"\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"\x1b]4;1;?\x07", "\x1b]4;1;rgb:cdcd/0000/0000\x07"},
		{"\x1b]4;196;?\x07", "\x1b]4;196;rgb:ffff/0000/0000\x07"},
		{"\x1b]4;232;?;233;?\x07", "\x1b]4;232;rgb:0808/0808/0808\x07\x1b]4;233;rgb:1212/1212/1212\x07"},
		{"\x1b[?u", "\x1b[?0u"},
		{"\x1b[>13u\x1b[?u", "\x1b[?13u"},
		{"\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"\x1b[?1000$p", "\x1b[?1000;2$y"},
		{"\x1b[?4242$p", "\x1b[?4242;0$y"},
		{"\x1b[18t", "\x1b[8;5;10t"},
		{"\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"\x1b[1;31m\x1bP$qm\x1b\\", "\x1bP1$r0;1;31m\x1b\\"},
		{"\x1b[2 q\x1bP$q q\x1b\\", "\x1bP1$r2 q\x1b\\"},
	}
	for _, tc := range cases {
		var got bytes.Buffer
		s := New(5, 10, Options{Version: "1.2.3", Reply: func(b []byte) { got.Write(b) }})
		s.Write([]byte(tc.in))
		if got.String() != tc.want {
			t.Errorf("%q: reply %q, want %q", tc.in, got.String(), tc.want)
		}
	}
	// A nil Reply is fine.
	New(2, 2, Options{}).Write([]byte("\x1b[c\x1b[6n"))
}

func TestEvents(t *testing.T) {
	cases := []struct {
		in   string
		want []Event
	}{
		{"a\x07b", []Event{{Type: "bell"}}},
		{"\x1b]0;hello\x07", []Event{{Type: "title_change", Value: "hello"}}},
		{"\x1b]2;hello\x1b\\\x1b]2;hello\x07\x1b]0;bye\x07", []Event{{Type: "title_change", Value: "hello"}, {Type: "title_change", Value: "bye"}}},
		{"\x1b]1;icon\x07", nil},
		{"\x1b]2;héllo wörld ñ\x07", []Event{{Type: "title_change", Value: "héllo wörld ñ"}}},
		{"\x1b]2;\u011c\x07", []Event{{Type: "title_change", Value: "\u011c"}}}, // contains a 0x9c byte
		{"\x1b]9;build done\x07", []Event{{Type: "notification", Body: "build done", Source: "osc9"}}},
		{"\x1b]9;4;1;50\x07", nil},
		{"\x1b]777;notify;Title;Body text\x1b\\", []Event{{Type: "notification", Title: "Title", Body: "Body text", Source: "osc777"}}},
		{"\x1b]99;;Hello\x1b\\", []Event{{Type: "notification", Body: "Hello", Source: "osc99"}}},
		{"\x1b]99;i=1:d=0:p=title;Hi\x1b\\\x1b]99;i=1:p=body;There\x1b\\", []Event{{Type: "notification", Title: "Hi", Body: "There", Source: "osc99"}}},
		{"\x1b]99;e=1;SGVsbG8=\x1b\\", []Event{{Type: "notification", Body: "Hello", Source: "osc99"}}},
		{"\x1b]1337;StealFocus\x07", []Event{{Type: "focus_request"}}},
		{"\x1b[?25l\x1b[?25l\x1b[?25h", []Event{{Type: "cursor_visible", Value: "false"}, {Type: "cursor_visible", Value: "true"}}},
		{"\x1b]52;c;aGVsbG8=\x07\x1b]8;;http://x\x07", nil},
		{"\x1b]2;shell\x07\x1b[22;2t\x1b]2;vim\x07\x1b[23;2t\x1b[23;2t", []Event{
			{Type: "title_change", Value: "shell"}, {Type: "title_change", Value: "vim"}, {Type: "title_change", Value: "shell"}}},
	}
	for _, tc := range cases {
		var got []Event
		s := New(5, 10, Options{OnEvent: func(e Event) { got = append(got, e) }})
		s.Write([]byte(tc.in))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
	s := newScreen(2, 2, "\x1b]2;the title\x07")
	if s.Title() != "the title" {
		t.Errorf("title %q", s.Title())
	}
}

// TestSplitWrites feeds inputs one byte per Write and checks the result
// matches a single Write.
func TestSplitWrites(t *testing.T) {
	in := "\x1b[1;31mred\x1b[0m 中文 e\u0301 😀\x1b]2;title ñ\x1b\\\x1b[?1049h\x1b[5;5Hx\x1b[38:2::1:2:3my\x1bP$qm\x1b\\\x1b(0q\x1b(B\x1b]0;t2\x07end"
	var r1, r2 bytes.Buffer
	a := New(10, 20, Options{Reply: func(b []byte) { r1.Write(b) }})
	a.Write([]byte(in))
	b := New(10, 20, Options{Reply: func(b []byte) { r2.Write(b) }})
	for i := 0; i < len(in); i++ {
		b.Write([]byte{in[i]})
	}
	assertSameScreen(t, a, b)
	if r1.String() != r2.String() {
		t.Errorf("replies differ: %q vs %q", r1.String(), r2.String())
	}
}

// sameCellAcross compares cells of two screens: the underline colour
// index of a cell is private to its screen, so the colours are compared.
func sameCellAcross(sa *Screen, a Cell, sb *Screen, b Cell) bool {
	return sameStyleAcross(sa, a, sb, b) && a.R == b.R && a.Attr == b.Attr
}

// sameStyleAcross is sameStyle for cells of two screens.
func sameStyleAcross(sa *Screen, a Cell, sb *Screen, b Cell) bool {
	ua, ub := sa.UnderlineColor(a), sb.UnderlineColor(b)
	ia, la := sa.Link(a)
	ib, lb := sb.Link(b)
	a.ul, b.ul = 0, 0
	return sameStyle(a, b) && ua == ub && ia == ib && la == lb
}

func assertSameScreen(t *testing.T, a, b *Screen) {
	t.Helper()
	ar, ac := a.Size()
	br, bc := b.Size()
	if ar != br || ac != bc {
		t.Fatalf("size %dx%d vs %dx%d", ar, ac, br, bc)
	}
	errs := 0
	for y := 0; y < ar; y++ {
		for x := 0; x < ac; x++ {
			ca, cb := a.Cell(y, x), b.Cell(y, x)
			if ca.R == ' ' && cb.R == 0 || ca.R == 0 && cb.R == ' ' {
				ca.R, cb.R = 0, 0
			}
			if !sameCellAcross(a, ca, b, cb) || a.CellText(ca) != b.CellText(cb) {
				if errs++; errs < 10 {
					t.Errorf("cell %d,%d: %+v %q vs %+v %q", y, x, ca, a.CellText(ca), cb, b.CellText(cb))
				}
			}
		}
	}
	ay, ax, av := a.Cursor()
	by, bx, bv := b.Cursor()
	if ay != by || ax != bx || av != bv || a.wrapNext != b.wrapNext {
		t.Errorf("cursor %d,%d,%v,%v vs %d,%d,%v,%v", ay, ax, av, a.wrapNext, by, bx, bv, b.wrapNext)
	}
	if a.Modes() != b.Modes() {
		t.Errorf("modes\n%+v\n%+v", a.Modes(), b.Modes())
	}
	if a.Title() != b.Title() {
		t.Errorf("title %q vs %q", a.Title(), b.Title())
	}
	if a.pen != b.pen {
		t.Errorf("pen %+v vs %+v", a.pen, b.pen)
	}
	if a.top != b.top || a.bottom != b.bottom {
		t.Errorf("margins %d-%d vs %d-%d", a.top, a.bottom, b.top, b.bottom)
	}
	if a.allowColumns != b.allowColumns {
		t.Errorf("mode 40 %v vs %v", a.allowColumns, b.allowColumns)
	}
}

func TestScrollback(t *testing.T) {
	s := New(3, 10, Options{Scrollback: 5})
	for i := 0; i < 20; i++ {
		fmt.Fprintf(s, "line %d\r\n", i)
	}
	if n := s.ScrollbackLen(); n != 5 {
		t.Errorf("scrollback %d, want 5", n)
	}
	want := "line 13\nline 14\nline 15\nline 16\nline 17\nline 18\nline 19\n\n"
	if got := s.PlainText(true); got != want {
		t.Errorf("full text %q, want %q", got, want)
	}
	s.Write([]byte("\x1b[3J"))
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("ED 3 left %d lines", n)
	}
	if got := text(s); got != "line 18|line 19" {
		t.Errorf("ED 3 changed the screen: %q", got)
	}

	none := New(3, 10, Options{Scrollback: -1})
	for i := 0; i < 20; i++ {
		fmt.Fprintf(none, "line %d\r\n", i)
	}
	if n := none.ScrollbackLen(); n != 0 {
		t.Errorf("negative scrollback kept %d lines", n)
	}
	if def := New(2, 2, Options{}); def.hist.max != DefaultScrollback {
		t.Errorf("default scrollback %d", def.hist.max)
	}
}

func TestScrollbackStyles(t *testing.T) {
	// Styled, wide and combined characters survive the trip through the
	// compact scrollback encoding.
	in := "\x1b[1;31mred\x1b[0m plain \x1b[48;2;1;2;3m中文\x1b[0m e\u0301 \x1b[4:3;58;5;9m😀\x1b[0m\r\n" +
		"\x1b[4;58;2;9;8;7mul\x1b[58;5;3m中\x1b[59mx\x1b[0m\r\n" +
		"plain line\r\n\x1b[44m     \x1b[0mbg\r\n"
	s := newScreen(5, 30, in)
	before := s.ANSI(false)
	s.Write([]byte("\x1b[5;1H\n\n\n\n\n"))
	if got := s.ANSI(true); !bytes.HasPrefix(got, before[:bytes.LastIndex(before[:len(before)-1], []byte("\n"))]) {
		t.Errorf("ANSI after scrolling:\n%q\nwant prefix\n%q", got, before)
	}
	for i := 0; i < 4; i++ {
		var dst [30]Cell
		s.hist.at(i).decode(dst[:])
		for x := range dst {
			// compare with a fresh rendering of the input
			ref := newScreen(5, 30, in)
			if c := ref.Cell(i, x); c != dst[x] && !(c.R == 0 && dst[x].R == ' ' && sameStyle(c, dst[x])) {
				t.Errorf("line %d cell %d: %+v, want %+v", i, x, dst[x], c)
				break
			}
		}
	}
}

func TestResize(t *testing.T) {
	s := New(5, 10, Options{})
	for i := 0; i < 5; i++ {
		fmt.Fprintf(s, "\r\nline %d", i)
	}
	// Rows "line 0".."line 4", cursor on the bottom row.
	s.Resize(3, 10)
	if got := text(s); got != "line 2|line 3|line 4" {
		t.Errorf("after shrink: %q", got)
	}
	if n := s.ScrollbackLen(); n != 3 {
		t.Errorf("scrollback %d, want 3", n)
	}
	if row, col, _ := s.Cursor(); row != 2 || col != 6 {
		t.Errorf("cursor %d,%d", row, col)
	}
	s.Resize(5, 10)
	if got := text(s); got != "line 0|line 1|line 2|line 3|line 4" {
		t.Errorf("after grow: %q", got)
	}
	if row, _, _ := s.Cursor(); row != 4 {
		t.Errorf("cursor row %d after grow", row)
	}
	// Shrinking with the cursor at the top drops blank rows below it.
	s = newScreen(5, 10, "top")
	s.Resize(2, 4)
	if got := text(s); got != "top" || s.ScrollbackLen() != 0 {
		t.Errorf("shrink with cursor at top: %q (%d in scrollback)", got, s.ScrollbackLen())
	}
	// Narrowing re-wraps: a wide character that does not fit moves to
	// the next row whole, the top row goes to the scrollback, and the
	// cursor past the end of its (empty) row goes to its end, as in tmux.
	s = newScreen(2, 10, "abcd中文\x1b[2;10H")
	s.Resize(2, 5)
	if got := s.PlainText(true); got != "abcd\n中文\n\n" {
		t.Errorf("narrowed: %q", got)
	}
	if row, col, _ := s.Cursor(); row != 1 || col != 0 {
		t.Errorf("cursor %d,%d", row, col)
	}
	s.Resize(2, 10)
	if got := s.PlainText(true); got != "abcd中文\n\n" {
		t.Errorf("widened again: %q", got)
	}
	s.Resize(0, 0)
	if r, c := s.Size(); r != 1 || c != 1 {
		t.Errorf("size %d,%d", r, c)
	}
	s.Write([]byte("中文abc\x1b[5;5H\x1b[L\x1b[M"))
}

func TestLastLines(t *testing.T) {
	s := New(4, 10, Options{})
	for i := 0; i < 6; i++ {
		fmt.Fprintf(s, "l%d\r\n", i)
	}
	got := s.LastLines(3)
	if want := []string{"l3", "l4", "l5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("LastLines(3) = %q, want %q", got, want)
	}
	if got := s.LastLines(100); len(got) != 6 || got[0] != "l0" {
		t.Errorf("LastLines(100) = %q", got)
	}
	s = newScreen(4, 10, "a\r\n\r\nb\r\n")
	if got := s.LastLines(5); !reflect.DeepEqual(got, []string{"a", "", "b"}) {
		t.Errorf("LastLines = %q", got)
	}
	if got := newScreen(2, 2, "").LastLines(3); len(got) != 0 {
		t.Errorf("empty: %q", got)
	}
}

func TestPlainTextFormat(t *testing.T) {
	s := newScreen(3, 10, "a  \r\n  b\x1b[44m   ")
	if got, want := s.PlainText(false), "a\n  b\n\n"; got != want {
		t.Errorf("PlainText = %q, want %q", got, want)
	}
}

func TestANSI(t *testing.T) {
	s := newScreen(2, 20, "\x1b[31mred\x1b[0m \x1b[38;5;100mx\x1b[1;48;2;1;2;3my\x1b[0m")
	want := "\x1b[0;31mred\x1b[0m \x1b[0;38;5;100mx\x1b[0;1;38;5;100;48;2;1;2;3my\x1b[0m\n\n"
	if got := string(s.ANSI(false)); got != want {
		t.Errorf("ANSI = %q\nwant    %q", got, want)
	}
}

func TestClusterTableBounded(t *testing.T) {
	s := New(2, 10, Options{})
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString("a")
		for j := 0; j < 30; j++ {
			b.WriteRune(0x300 + rune(i+j)%0x70)
		}
	}
	s.Write([]byte(b.String()))
	if len(s.clusters) > maxClusters {
		t.Errorf("cluster table grew to %d", len(s.clusters))
	}
}

// TestHistoryRoundTrip: a row encoded into the scrollback decodes to the
// same cells, empty cells, written spaces, wide characters, pens and
// underline colours included (reflow relies on it).
func TestHistoryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := New(1, 40, Options{})
	pens := []Cell{{}, {Fg: BasicColor(1)}, {Bg: IndexedColor(200), Attr: AttrBold},
		{Attr: Attr(0).withUnderline(UnderlineCurly), ul: s.ulIndex(RGBColor(1, 2, 3))}, {Fg: RGBColor(9, 9, 9), ul: s.ulIndex(IndexedColor(4))}}
	for n := range 2000 {
		cells := make([]Cell, 40)
		for x := 0; x < len(cells); x++ {
			pen := pens[rng.Intn(len(pens))]
			switch k := rng.Intn(10); {
			case k < 5:
				pen.R = rune('a' + rng.Intn(26))
			case k < 6:
				pen.R = ' '
			case k < 7:
				pen.R = 'é'
			case k < 8 && x+1 < len(cells):
				pen.R = '中'
				cells[x+1] = pen
				cells[x+1].R = 0
				cells[x+1].Attr |= AttrWideCont
				pen.Attr |= AttrWide
			default:
				pen.R = 0
			}
			cells[x] = pen
			if pen.Attr&AttrWide != 0 {
				x++
			}
		}
		h := s.encodeLine(cells, n%2 == 0)
		got := h.appendCells(nil)
		want := cells[:trimmedLen(cells)]
		if h.raw() != nil || h.wrapped() != (n%2 == 0) || !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d: raw %v\n got %+v\nwant %+v", n, h.raw() != nil, got, want)
		}
		if used, all := h.widths(); used != usedWidth(want) || all != len(want) {
			t.Fatalf("row %d: widths %d,%d, want %d,%d", n, used, all, usedWidth(want), len(want))
		}
	}
}

// logicalLines is the text of the main screen and its scrollback as
// logical lines (rows joined by soft wraps), without trailing blanks.
func logicalLines(s *Screen) string {
	var out []string
	var cur strings.Builder
	add := func(cells []Cell, wrapped bool) {
		for _, c := range cells[:usedWidth(cells)] {
			cur.WriteString(s.CellText(c))
		}
		if !wrapped {
			out = append(out, strings.TrimRight(cur.String(), " "))
			cur.Reset()
		}
	}
	for i := 0; i < s.hist.n; i++ {
		h := s.hist.at(i)
		add(h.appendCells(nil), h.wrapped())
	}
	for y := 0; y < s.rows; y++ {
		ln := s.main.row(y)
		add(ln.cells, ln.wrapped && y < s.rows-1)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// TestReflowKeepsText: a resize only moves wrap points and the boundary
// with the scrollback; the logical lines stay the same, however often it
// happens.
func TestReflowKeepsText(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := range 300 {
		rows, cols := 2+rng.Intn(10), 2+rng.Intn(40)
		s := New(rows, cols, Options{Scrollback: 100000})
		s.Write(randomText(rng, 10+rng.Intn(150)))
		want := logicalLines(s)
		for range 4 {
			r, c := s.Size()
			if rng.Intn(2) == 0 {
				s.Resize(r, 2+rng.Intn(40))
			} else {
				s.Resize(1+rng.Intn(12), 2+rng.Intn(40))
			}
			check(t, s)
			if got := logicalLines(s); got != want {
				t.Fatalf("case %d: %dx%d -> %dx%d changed the text:\n got %q\nwant %q", n, r, c, s.rows, s.cols, got, want)
			}
		}
	}
}

// TestKeptEncoding: the encoding kept up while a row is printed (for rows
// that are not mixed) stores the same scrollback as encoding the cells.
// The reference screen has every row marked mixed after each byte, so it
// always encodes the cells.
func TestKeptEncoding(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	// Mostly log output, which keeps rows unmixed, and now and then
	// something that mixes them.
	logPieces := []string{"\x1b[31m", "\x1b[0m", "\x1b[1;35m", "\x1b[38;5;208m", "\x1b[38;2;10;200;120m",
		"\x1b[44m", "\x1b[4:3;58;5;9m", "\x1b[m", "\t", "\r\n", "\r\r\n", "\n", "\x1b[K", "\x1b[5G"}
	others := []string{"\r", "\x1b[2K", "\x1b[1K", "\x1b[3C", "\x1b[2D", "\x1b[A", "\x1b[X", "\x1b[@", "\x1b[P",
		"\x1b[L", "\x1b[M", "中", "é", "e\u0301", "\x1b(0q\x1b(B", "\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h",
		"\x1b[2;4r", "\x1b[r", "\x1b[S", "\x1b[T", "\x1bM", "\x1b[?1049h", "\x1b[?1049l", "\x1b[2J"}
	var in []byte
	for len(in) < 200000 {
		switch rng.Intn(30) {
		case 0:
			in = append(in, others[rng.Intn(len(others))]...)
			continue
		case 1, 2, 3, 4, 5, 6, 7, 8, 9:
			in = append(in, logPieces[rng.Intn(len(logPieces))]...)
			continue
		}
		for n := rng.Intn(30); n > 0; n-- {
			in = append(in, byte(' '+rng.Intn(95)))
		}
	}
	s := New(6, 20, Options{Scrollback: 1000})
	ref := New(6, 20, Options{Scrollback: 1000})
	for p := in; len(p) > 0; {
		n := min(len(p), 1+rng.Intn(64))
		s.Write(p[:n])
		check(t, s)
		for _, b := range p[:n] {
			ref.Write([]byte{b})
			for _, g := range []*grid{&ref.main, &ref.alt} {
				for i := range g.lines {
					g.lines[i].mixed = true
				}
			}
		}
		p = p[n:]
	}
	if s.hist.n != ref.hist.n {
		t.Fatalf("%d scrollback lines, want %d", s.hist.n, ref.hist.n)
	}
	for i := range s.hist.n {
		if got, want := histKey(s.hist.at(i)), histKey(ref.hist.at(i)); got != want {
			t.Fatalf("scrollback line %d: %q, want %q", i, got, want)
		}
	}
}

// TestStoreASCII checks the word-at-a-time printing loop against writing
// cells one by one, around every byte that ends a printable run.
func TestStoreASCII(t *testing.T) {
	pen := Cell{Fg: RGBColor(1, 2, 3), Bg: BasicColor(4), Attr: AttrBold, ul: 7}
	w0, w1 := cellWords(pen)
	for stop := range 256 {
		for at := range 20 {
			src := []byte("abcdefghijklmnopqrstuvwxyz")
			src[at] = byte(stop)
			dst := make([]Cell, 24)
			n := storeASCII(dst, src, w0, w1)
			want := 24
			if stop < 0x20 || stop >= 0x7f {
				want = at
			}
			if n != want {
				t.Fatalf("byte %#x at %d: stored %d, want %d", stop, at, n, want)
			}
			for i, c := range dst {
				w := Cell{}
				if i < n {
					w = pen
					w.R = rune(src[i])
				}
				if c != w {
					t.Fatalf("byte %#x at %d: cell %d is %+v, want %+v", stop, at, i, c, w)
				}
			}
		}
	}
}

func TestCellWords(t *testing.T) {
	c := Cell{R: 'x', Fg: RGBColor(1, 2, 3), Bg: IndexedColor(200), Attr: AttrBold | AttrWide, ul: 0x1234}
	w0, w1 := cellWords(c)
	if got := *(*[2]uint64)(unsafe.Pointer(&c)); got != [2]uint64{w0, w1} {
		t.Errorf("cellWords %#x %#x, want %#x", w0, w1, got)
	}
}

// histKey is the content of a scrollback line, for comparisons.
func histKey(h *histLine) string {
	if raw := h.raw(); raw != nil {
		return fmt.Sprintf("%#x raw %v", h.meta, raw)
	}
	return fmt.Sprintf("%#x %q", h.meta, h.data())
}

// TestHistoryChunks: lines keep their bytes while chunks are reused as
// the ring turns over, whatever mix of pushes, pops and clears, and the
// chunks held stay in proportion to the lines kept.
func TestHistoryChunks(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, max := range []int{1, 7, 100, 400} {
		h := history{max: max}
		var want []string // the ring's lines, oldest first
		for i := range 20000 {
			switch k := rng.Intn(200); {
			case k == 0:
				h.clear()
				want = want[:0]
			case k < 20 && h.n > 0:
				l := h.popNewest()
				if got := l.data(); got != want[len(want)-1] {
					t.Fatalf("max %d, step %d: popped %q, want %q", max, i, got, want[len(want)-1])
				}
				want = want[:len(want)-1]
			default:
				size := rng.Intn(200)
				if rng.Intn(100) == 0 {
					size = histChunkSize/4 + rng.Intn(histChunkSize)
				}
				b := []byte(lineText(i, size))
				h.push(newHistLine(b, size, false))
				clear(b) // the history keeps a copy
				want = append(want, lineText(i, size))
				if len(want) > h.max {
					want = want[1:]
				}
			}
			if h.n != len(want) {
				t.Fatalf("max %d, step %d: %d lines, want %d", max, i, h.n, len(want))
			}
			for j := range want {
				l := h.at(j)
				if got := l.data(); got != want[j] {
					t.Fatalf("max %d, step %d: line %d is %q, want %q", max, i, j, got, want[j])
				}
				for _, sp := range h.spare {
					start := uintptr(unsafe.Pointer(unsafe.SliceData(sp)))
					if p := uintptr(unsafe.Pointer(l.p)); start != 0 && p >= start && p < start+histChunkSize {
						t.Fatalf("max %d, step %d: line %d is in a spare chunk", max, i, j)
					}
				}
			}
			if len(h.chunks) > max*200/histChunkSize+3 {
				t.Fatalf("max %d, step %d: %d chunks for %d lines", max, i, len(h.chunks), h.n)
			}
		}
	}
}

func lineText(i, size int) string {
	b := make([]byte, size)
	for j := range b {
		b[j] = byte('a' + (i+j)%26)
	}
	return string(b)
}

// TestREPSplit: a REP split across writes still repeats, once.
func TestREPSplit(t *testing.T) {
	s := New(1, 20, Options{})
	for _, w := range []string{"x", "\x1b", "[", "2", "b", "\x1b[", "2b"} {
		s.Write([]byte(w))
	}
	if got := text(s); got != "xxx" {
		t.Fatalf("got %q, want xxx", got)
	}
}

// TestDECCOLM: as in xterm, DECCOLM (CSI ? 3 h / l) clears the screen,
// resets the margins and homes the cursor only while mode 40 allows
// 80/132-column switching; without it (the default, and after RIS) it does
// nothing, so "tput reset" (CSI ? 3 ; 4 l) keeps the screen. The width
// never changes: it is the clients' to choose.
func TestDECCOLM(t *testing.T) {
	const setup = "one\r\ntwo\r\nthree\x1b[2;4r\x1b[3;2H"
	for _, tc := range []struct {
		name, in string
		clears   bool
	}{
		{"without mode 40", setup + "\x1b[?3h", false},
		{"without mode 40, reset", setup + "\x1b[?3;4l", false},
		{"mode 40 set then reset", "\x1b[?40h\x1b[?40l" + setup + "\x1b[?3h", false},
		{"mode 40 then RIS", "\x1b[?40h\x1bc" + setup + "\x1b[?3l", false},
		{"132 columns", "\x1b[?40h" + setup + "\x1b[?3h", true},
		{"80 columns", "\x1b[?40h" + setup + "\x1b[?3l", true},
		{"mode 40 with DECCOLM", setup + "\x1b[?40;3h", true},
		{"origin mode", "\x1b[?40h" + setup + "\x1b[?6h\x1b[?3h", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(5, 10, tc.in)
			y, x, _ := s.Cursor()
			rows, cols := s.Size()
			if rows != 5 || cols != 10 {
				t.Fatalf("size %dx%d", rows, cols)
			}
			if !tc.clears {
				if got := text(s); got != "one|two|three" {
					t.Errorf("screen %q, want it kept", got)
				}
				if y != 2 || x != 1 || s.top != 1 || s.bottom != 3 {
					t.Errorf("cursor %d,%d margins %d-%d, want them kept", y, x, s.top, s.bottom)
				}
				return
			}
			if got := text(s); got != "" {
				t.Errorf("screen %q, want it cleared", got)
			}
			if y != 0 || x != 0 || s.top != 0 || s.bottom != 4 {
				t.Errorf("cursor %d,%d margins %d-%d, want home and no margins", y, x, s.top, s.bottom)
			}
			// Like ED 2, the cleared screen stays in the scrollback.
			if got := strings.Join(s.Lines(true)[:3], "|"); got != "one|two|three" {
				t.Errorf("scrollback %q", got)
			}
		})
	}
}

func TestDECCOLMReport(t *testing.T) {
	var replies []string
	s := New(5, 10, Options{Reply: func(b []byte) { replies = append(replies, string(b)) }})
	s.Write([]byte("\x1b[?40$p\x1b[?3$p\x1b[?40h\x1b[?3h\x1b[?40$p\x1b[?3$p\x1b[?3l\x1b[?3$p"))
	want := []string{"\x1b[?40;2$y", "\x1b[?3;2$y", "\x1b[?40;1$y", "\x1b[?3;1$y", "\x1b[?3;2$y"}
	if !reflect.DeepEqual(replies, want) {
		t.Fatalf("DECRQM replies %q, want %q", replies, want)
	}
}

// TestDECSCA: characters printed after DECSCA 1 are protected from the
// selective erases DECSED (CSI ? J) and DECSEL (CSI ? K), which erase
// everything else in their range as ED and EL do; ED and EL erase
// protected characters too. Protection is kept per cell, survives SGR 0
// (it is not a rendition), is saved by DECSC and cleared by DECSTR.
func TestDECSCA(t *testing.T) {
	const p, u = "\x1b[1\"q", "\x1b[0\"q" // protect, unprotect
	for _, tc := range []struct {
		name, in, want string
	}{
		{"DECSEL 2", p + "AB" + u + "cd" + p + "E" + u + "f\x1b[?2K", "AB  E"},
		{"DECSEL 0", p + "AB" + u + "cd" + p + "E" + u + "f\x1b[1;2H\x1b[?K", "AB  E"},
		{"DECSEL 0 mid", "ab" + p + "C" + u + "de\x1b[1;2H\x1b[?0K", "a C"},
		{"DECSEL 1", "ab" + p + "C" + u + "de\x1b[1;4H\x1b[?1K", "  C e"},
		{"EL erases protected", p + "AB" + u + "cd\x1b[2K", ""},
		{"ED erases protected", p + "AB" + u + "cd\x1b[2J", ""},
		{"DECSED 2", p + "AB" + u + "cd\r\nef" + p + "G\x1b[?2J", "AB|  G"},
		{"DECSED 0", "ab" + p + "C\r\n" + u + "de" + p + "F\x1b[1;2H\x1b[?J", "a C|  F"},
		{"DECSED 1", "ab" + p + "C\r\n" + u + "de" + p + "F\r\ngh\x1b[2;2H\x1b[?1J", "  C|  F|gh"},
		{"DECSED without protection is ED", "ab\r\ncd\x1b[?2J", ""},
		{"SGR 0 keeps it", p + "\x1b[0;1mA\x1b[mB" + u + "c\x1b[?2K", "AB"},
		{"DECSTR clears it", p + "A\x1b[!pB\x1b[?2K", "A"},
		{"DECSC saves it", p + "\x1b7" + u + "a\x1b8\x1b[1;2HB\x1b[?2K", " B"},
		{"wide", p + "中" + u + "x中\x1b[?2K", "中"},
		{"overwritten", p + "AB" + u + "\x1b[1;1Hx\x1b[?2K", " B"},
		{"RIS clears it", p + "\x1bcA\x1b[?2K", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(4, 10, tc.in)
			if got := text(s); got != tc.want {
				t.Errorf("%q: screen %q, want %q", tc.in, got, tc.want)
			}
			if got := strings.Join(s.Lines(true)[:s.ScrollbackLen()], "|"); tc.name != "ED erases protected" && tc.name != "DECSED without protection is ED" && got != "" {
				t.Errorf("scrollback %q, want none", got)
			}
		})
	}
}

// TestDECSCAKeptByScrollback: protection survives a trip through the
// scrollback (lines scrolled out and pulled back by growing the screen),
// and does not show in captures.
func TestDECSCAKeptByScrollback(t *testing.T) {
	s := newScreen(2, 10, "\x1b[1\"qAB\x1b[0\"qcd\r\n\x1b[31m\x1b[1\"qRED\x1b[0\"q\x1b[mx\r\n\r\n")
	if s.ScrollbackLen() != 2 {
		t.Fatalf("%d lines of scrollback", s.ScrollbackLen())
	}
	if got, want := string(s.ANSI(true)), "ABcd\n\x1b[0;31mRED\x1b[0mx\n\n\n"; got != want {
		t.Errorf("ANSI capture %q, want %q", got, want)
	}
	s.Resize(4, 10)
	if got := text(s); got != "ABcd|REDx" {
		t.Fatalf("screen %q", got)
	}
	s.Write([]byte("\x1b[H\x1b[?J"))
	if got := text(s); got != "AB|RED" {
		t.Errorf("after DECSED: %q", got)
	}
}

func TestDECSCAReport(t *testing.T) {
	var replies []string
	s := New(2, 10, Options{Reply: func(b []byte) { replies = append(replies, string(b)) }})
	s.Write([]byte("\x1bP$q\"q\x1b\\\x1b[1\"q\x1bP$q\"q\x1b\\"))
	want := []string{"\x1bP1$r0\"q\x1b\\", "\x1bP1$r1\"q\x1b\\"}
	if !reflect.DeepEqual(replies, want) {
		t.Fatalf("DECRQSS replies %q, want %q", replies, want)
	}
}
