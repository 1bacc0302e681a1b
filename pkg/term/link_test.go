package term

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

const (
	linkOpen  = "\x1b]8;id=a;https://e.test/x\x1b\\"
	linkClose = "\x1b]8;;\x1b\\"
)

// links returns row y's cells as text with [uri ...] around linked runs.
func links(s *Screen, y int) string {
	var b strings.Builder
	cur := ""
	for x := range s.cols {
		c := s.Cell(y, x)
		id, uri := s.Link(c)
		if id != "" {
			uri = id + " " + uri
		}
		if uri != cur {
			if cur != "" {
				b.WriteString("]")
			}
			if uri != "" {
				b.WriteString("[" + uri + " ")
			}
			cur = uri
		}
		b.WriteString(s.CellText(c))
	}
	if cur != "" {
		b.WriteString("]")
	}
	return strings.TrimRight(b.String(), " ")
}

func TestLinkSetAndClose(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a" + linkOpen + "bc" + linkClose + "d", "a[id=a https://e.test/x bc]d"},
		// BEL ends OSC 8 as well; params other than id are not kept.
		{"\x1b]8;foo=1;mailto:me@e.test\x07m\x1b]8;;\x07n", "[mailto:me@e.test m]n"},
		// SGR 0 and 59 do not end a link; a new link replaces the old.
		{linkOpen + "a\x1b[0mb\x1b[58;5;1;59mc\x1b]8;;http://o.test/\x1b\\d" + linkClose, "[id=a https://e.test/x abc][http://o.test/ d]"},
		// Colours change within a link.
		{linkOpen + "a\x1b[31mb\x1b[0m" + linkClose + "c", "[id=a https://e.test/x ab]c"},
		// Erasing leaves no link behind.
		{linkOpen + "abc\x1b[1G\x1b[K" + linkClose, ""},
		// Overwriting with plain text takes the link away.
		{linkOpen + "abc" + linkClose + "\rX", "X[id=a https://e.test/x bc]"},
		// Too long, or with bytes that could not be sent again: no link.
		{"\x1b]8;;https://e.test/" + strings.Repeat("a", maxLinkURI) + "\x1b\\a", "a"},
		{"\x1b]8;;https://e.test/\xff\x1b\\a", "a"},
		{"\x1b]8;id=" + strings.Repeat("i", maxLinkID+1) + ";https://e.test/\x1b\\a", "[https://e.test/ a]"},
	}
	for _, tc := range cases {
		s := newScreen(3, 40, tc.in)
		if got := links(s, 0); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestLinkRoundTrip checks that what is drawn again for a terminal (a
// redraw, a capture, the scrollback) re-creates the links.
func TestLinkRoundTrip(t *testing.T) {
	in := "one " + linkOpen + "two\x1b[1m three\x1b[0m\r\nfour" + linkClose + " five\r\n" +
		"\x1b]8;;https://e.test/y\x1b\\six" + linkClose + "\r\n"
	src := newScreen(3, 20, in+"last")
	if src.ScrollbackLen() == 0 {
		t.Fatal("nothing scrolled into history")
	}
	cap := string(src.ANSI(true))
	for _, want := range []string{
		"one " + linkOpen + "\x1b[0mtwo\x1b[0;1m three" + linkClose + "\x1b[0m\n",
		linkOpen + "\x1b[0mfour" + linkClose + "\x1b[0m five\n",
		"\x1b]8;;https://e.test/y\x1b\\\x1b[0msix" + linkClose + "\x1b[0m\n",
	} {
		if !strings.Contains(cap, want) {
			t.Errorf("ANSI(true) lacks %q:\n%q", want, cap)
		}
	}
	// History then redraw, as an attach sends them, into a fresh screen.
	dst := New(3, 20, Options{})
	dst.Write(src.AppendHistory(nil, -1, 3, 1<<20))
	dst.Write(src.Redraw())
	assertSameScreen(t, src, dst)
	if got, want := links(dst, 0), "[id=a https://e.test/x four] five"; got != want {
		t.Errorf("redrawn row 0: %q, want %q", got, want)
	}
	var all []string
	var cells []Cell
	for seq := dst.HistorySeq() - int64(dst.ScrollbackLen()) + 1; seq <= dst.HistorySeq(); seq++ {
		cells, _ = dst.AppendHistoryLine(cells[:0], seq)
		for _, c := range cells {
			if _, uri := dst.Link(c); uri != "" {
				all = append(all, dst.CellText(c)+"="+uri)
			}
		}
	}
	if got := strings.Join(all, ","); got != "t=https://e.test/x,w=https://e.test/x,o=https://e.test/x,"+
		" =https://e.test/x,t=https://e.test/x,h=https://e.test/x,r=https://e.test/x,e=https://e.test/x,e=https://e.test/x" {
		t.Errorf("history links after the round trip: %s", got)
	}
	// The pen's open link survives a redraw: text printed after it is
	// still linked.
	s := newScreen(3, 20, "a"+linkOpen+"b")
	r := New(3, 20, Options{})
	r.Write(s.Redraw())
	r.Write([]byte("c"))
	if got, want := links(r, 0), "a[id=a https://e.test/x bc]"; got != want {
		t.Errorf("after a redraw with an open link: %q, want %q", got, want)
	}
}

// TestLinkTableBounded feeds a million distinct links: the table stays
// bounded, the links still on the screen keep working and ids are reused.
func TestLinkTableBounded(t *testing.T) {
	n := 1_000_000
	if raceEnabled || testing.Short() {
		n = 100_000
	}
	s := New(5, 20, Options{Scrollback: 100})
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "\x1b]8;;https://e.test/%d\x1b\\x", i)
		if i%10 == 9 {
			b.WriteString(linkClose + "\r\n")
		}
		if b.Len() > 1<<16 {
			s.Write(b.Bytes())
			b.Reset()
		}
	}
	s.Write(b.Bytes())
	if len(s.links.targets) > maxLinks+1 || len(s.ulColors) > maxULColors+1 {
		t.Errorf("tables grew to %d links, %d entries", len(s.links.targets), len(s.ulColors))
	}
	// The last line's links are the last ones sent.
	last := s.Cell(3, 9)
	if _, uri := s.Link(last); uri != fmt.Sprintf("https://e.test/%d", n-1) {
		t.Errorf("last cell links to %q", uri)
	}
	live := 0
	for y := range 5 {
		for x := range 20 {
			if _, uri := s.Link(s.Cell(y, x)); uri != "" {
				live++
			}
		}
	}
	if live < 40 {
		t.Errorf("only %d linked cells on the screen after the flood", live)
	}
}

// TestLinkFreeScreenHasNoTable checks that output without OSC 8 never
// allocates the link table.
func TestLinkFreeScreenHasNoTable(t *testing.T) {
	s := newScreen(5, 20, "\x1b[4;58;5;3mu\x1b[0m plain\x1b[59m\r\n\x1b]8;;\x1b\\x")
	if s.links.ulLinks != nil || s.links.targets != nil {
		t.Errorf("link table allocated: %+v", s.links)
	}
}

// An open hyperlink is part of the pen, as in tmux (whose grid cell
// carries it; tmux 3.3a keeps no links, so this follows the later tmux's
// input.c and screen.c): DECSTR and RIS reset the pen and so close it,
// SGR 0 does not; DECSC saves it and DECRC brings it back; ?1049 saves
// the pen on the way in and restores it on the way out, while ?47 and
// ?1047 leave the pen as it is; a DECSTR on the alternate screen resets
// its own saved cursor only, so ?1049l restores the link.
func TestLinkAcrossResetsAndScreens(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"DECSTR closes", linkOpen + "a\x1b[!pb", "[id=a https://e.test/x a]b"},
		{"RIS closes", linkOpen + "a\x1bcb", "b"},
		{"SGR 0 keeps", linkOpen + "a\x1b[0mb", "[id=a https://e.test/x ab]"},
		{"DECSC saves", linkOpen + "\x1b7" + linkClose + "a\x1b8b", "[id=a https://e.test/x b]"},
		{"DECSTR drops the saved pen", linkOpen + "\x1b7\x1b[!p\x1b8b", "b"},
		{"1049 keeps it open", linkOpen + "a\x1b[?1049hb", " [id=a https://e.test/x b]"},
		{"1049 restores it", linkOpen + "a\x1b[?1049h" + linkClose + "\x1b[?1049lb", "[id=a https://e.test/x ab]"},
		{"1049 restores none", "a\x1b[?1049h" + linkOpen + "\x1b[?1049lb", "ab"},
		{"47 leaves the pen", linkOpen + "a\x1b[?47h" + linkClose + "\x1b[?47lb", "[id=a https://e.test/x a]b"},
		{"1047 leaves the pen", "a\x1b[?1047h" + linkOpen + "\x1b[?1047lb", "a[id=a https://e.test/x b]"},
		{"DECSTR on the alternate screen", linkOpen + "a\x1b[?1049h\x1b[!p\x1b[?1049lb", "[id=a https://e.test/x ab]"},
		{"RIS on the alternate screen", linkOpen + "a\x1b[?1049h\x1bcb", "b"},
	} {
		s := New(3, 20, Options{})
		s.Write([]byte(c.in))
		if got := links(s, 0); got != c.want {
			t.Errorf("%s: row 0 is %q, want %q", c.name, got, c.want)
		}
	}
}
