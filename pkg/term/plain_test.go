package term

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// naivePlain is the plain text of a row from all of its cells, the way
// the text is defined: each cell's character (a space for none, nothing
// for the second half of a wide one), trailing spaces trimmed.
func (s *Screen) naivePlain(cells []Cell) string {
	var b strings.Builder
	for _, c := range cells {
		switch {
		case c.Attr&AttrWideCont != 0:
		case c.R == 0:
			b.WriteByte(' ')
		case c.R >= clusterBase:
			b.WriteString(s.clusters[c.R-clusterBase])
		default:
			b.WriteRune(c.R)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// AppendPlainText reads a row only up to its ink, in runs of ASCII where
// it can: whatever was written, erased or moved over, the text is what
// every cell of the row says.
func TestPlainTextMatchesEveryCell(t *testing.T) {
	pieces := []string{"a", "hello ", "  x", "é", "世界", "👍🏽", "e\u0301", "\t", "\r\n", "\n", "\x1b[5C", "\x1b[3D",
		"\x1b[K", "\x1b[1K", "\x1b[2K", "\x1b[J", "\x1b[2;5H", "\x1b[41m", "\x1b[0m", "\x1b[2X", "\x1b[3@", "\x1b[2P",
		"\x1b[L", "\x1b[M", "\x1b[S", "\x1b[T", "\x1b#8", " ", "\x1b[?7l", "\x1b[?7h", strings.Repeat("z", 30)}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		s := New(1+r.IntN(8), 1+r.IntN(40), Options{Scrollback: 20})
		var in strings.Builder
		for range r.IntN(60) {
			in.WriteString(pieces[r.IntN(len(pieces))])
		}
		s.Write([]byte(in.String()))
		var want strings.Builder
		for y := 0; y < s.rows; y++ {
			want.WriteString(s.naivePlain(s.g.row(y).cells))
			want.WriteByte('\n')
		}
		if got := string(s.AppendPlainText(nil, false)); got != want.String() {
			t.Fatalf("case %d, input %q:\ngot  %q\nwant %q", i, in.String(), got, want.String())
		}
		// With the scrollback, into a buffer that is not grown first.
		var hist strings.Builder
		var buf []Cell
		for j := 0; j < s.hist.n; j++ {
			buf = s.hist.at(j).appendCells(buf[:0])
			hist.WriteString(s.naivePlain(buf))
			hist.WriteByte('\n')
		}
		if got := string(s.AppendPlainText(nil, true)); got != hist.String()+want.String() {
			t.Fatalf("case %d (full), input %q:\ngot  %q\nwant %q", i, in.String(), got, hist.String()+want.String())
		}
	}
}
