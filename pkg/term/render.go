package term

import (
	"slices"
	"strconv"
	"strings"
)

// eachLine calls f with the cells of every line: the scrollback first when
// full (also on the alternate screen, as tmux does), then the visible rows.
// The slice is only valid during the call.
func (s *Screen) eachLine(full bool, f func(cells []Cell)) {
	if full {
		var buf []Cell
		for i := 0; i < s.hist.n; i++ {
			buf = s.hist.at(i).appendCells(buf[:0])
			f(buf)
		}
	}
	for y := 0; y < s.rows; y++ {
		f(s.g.row(y).cells)
	}
}

// appendPlain appends the text of cells with trailing spaces trimmed.
func (s *Screen) appendPlain(b []byte, cells []Cell) []byte {
	start := len(b)
	// Blank cells at the end would only be written to be trimmed: most
	// of a screen's rows are short or empty.
	n := len(cells)
	for ; n > 0; n-- {
		c := &cells[n-1]
		if c.R != 0 && c.R != ' ' || c.Attr&AttrWideCont != 0 {
			break
		}
	}
	cells = cells[:n]
	if cap(b)-len(b) >= n {
		// Room for a byte a cell, the common case (AppendPlainText
		// grows b once for the screen): ASCII is stored, not appended.
		out := b[len(b) : len(b)+n]
		k := 0
		for i := range cells {
			c := &cells[i]
			r := c.R
			if r < 0 || r >= 0x80 || c.Attr&AttrWideCont != 0 {
				b = s.appendPlainCells(b[:len(b)+k], cells[i:])
				return trimSpaces(b, start)
			}
			if r == 0 {
				r = ' '
			}
			out[k] = byte(r)
			k++
		}
		return trimSpaces(b[:len(b)+k], start)
	}
	return trimSpaces(s.appendPlainCells(b, cells), start)
}

// appendPlainCells appends the text of cells, blanks included.
func (s *Screen) appendPlainCells(b []byte, cells []Cell) []byte {
	for i := range cells {
		c := &cells[i]
		switch {
		case c.Attr&AttrWideCont != 0:
		case c.R == 0:
			b = append(b, ' ')
		case c.R < 0x80:
			b = append(b, byte(c.R))
		case c.R >= clusterBase:
			b = append(b, s.clusters[c.R-clusterBase]...)
		default:
			b = appendRune(b, c.R)
		}
	}
	return b
}

// trimSpaces drops the spaces at the end of b[start:].
func trimSpaces(b []byte, start int) []byte {
	end := len(b)
	for end > start && b[end-1] == ' ' {
		end--
	}
	return b[:end]
}

func appendRune(b []byte, r rune) []byte {
	return append(b, string(r)...)
}

// PlainText returns the screen text like `tmux capture-pane -p`: one line
// per row with trailing spaces trimmed, each followed by "\n". With full
// the scrollback comes first (like -S -), on the alternate screen too.
func (s *Screen) PlainText(full bool) string {
	return string(s.AppendPlainText(nil, full))
}

// AppendPlainText appends PlainText(full) to b, for a caller that keeps
// bytes (the daemon's SCREEN payload) and would otherwise copy the text
// twice.
func (s *Screen) AppendPlainText(b []byte, full bool) []byte {
	if !full {
		// Room for every row at full width: one allocation.
		b = slices.Grow(b, s.rows*(s.cols+1))
	}
	if full {
		var buf []Cell
		for i := 0; i < s.hist.n; i++ {
			buf = s.hist.at(i).appendCells(buf[:0])
			b = append(s.appendPlain(b, buf), '\n')
		}
	}
	for y := 0; y < s.rows; y++ {
		// Past its ink a row has no character, only blanks that
		// appendPlain would trim: most rows end well before the edge.
		ln := s.g.row(y)
		b = append(s.appendPlain(b, ln.cells[:ln.ink]), '\n')
	}
	return b
}

// Lines returns the plain text lines (without newlines).
func (s *Screen) Lines(full bool) []string {
	var out []string
	var b []byte
	s.eachLine(full, func(cells []Cell) {
		b = s.appendPlain(b[:0], cells)
		out = append(out, string(b))
	})
	return out
}

// LastLines returns up to n of the last lines of scrollback plus screen,
// with trailing blank lines dropped.
func (s *Screen) LastLines(n int) []string {
	if n <= 0 {
		return nil
	}
	var rev []string
	var b []byte
	var buf []Cell
	take := func(cells []Cell) bool {
		b = s.appendPlain(b[:0], cells)
		if len(rev) == 0 && len(b) == 0 {
			return true
		}
		rev = append(rev, string(b))
		return len(rev) < n
	}
	more := true
	for y := s.rows - 1; y >= 0 && more; y-- {
		more = take(s.g.row(y).cells)
	}
	for i := s.hist.n - 1; i >= 0 && more; i-- {
		buf = s.hist.at(i).appendCells(buf[:0])
		more = take(buf)
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// appendSGRParams appends the parameters (without CSI and final m) that
// select c's rendition from a reset state, starting with 0.
func (s *Screen) appendSGRParams(b []byte, c Cell) []byte {
	b = append(b, '0')
	a := c.Attr
	for _, f := range [...]struct {
		bit Attr
		p   string
	}{
		{AttrBold, "1"}, {AttrDim, "2"}, {AttrItalic, "3"}, {AttrBlink, "5"},
		{AttrReverse, "7"}, {AttrHidden, "8"}, {AttrStrike, "9"}, {AttrOverline, "53"},
	} {
		if a&f.bit != 0 {
			b = append(b, ';')
			b = append(b, f.p...)
		}
	}
	switch u := a.Underline(); u {
	case UnderlineNone:
	case UnderlineSingle:
		b = append(b, ";4"...)
	default:
		b = append(b, ";4:"...)
		b = strconv.AppendInt(b, int64(u), 10)
	}
	if c.ul != 0 {
		b = appendULColor(b, s.UnderlineColor(c))
	}
	b = appendColor(b, c.Fg, false)
	b = appendColor(b, c.Bg, true)
	return b
}

// appendULColor appends SGR 58 in the semicolon form tmux's capture-pane
// -e uses; a palette colour is always 58;5;N (there is no short form).
func appendULColor(b []byte, c Color) []byte {
	switch c.Kind() {
	case ColorKindBasic, ColorKindIndexed:
		b = append(b, ";58;5;"...)
		return strconv.AppendInt(b, int64(c.Index()), 10)
	case ColorKindRGB:
		b = append(b, ";58;2;"...)
		r, g, bl := c.RGB()
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	return b
}

func appendColor(b []byte, c Color, bg bool) []byte {
	switch c.Kind() {
	case ColorKindBasic:
		i := int(c.Index())
		base := 30
		if i >= 8 {
			base, i = 90, i-8
		}
		if bg {
			base += 10
		}
		b = append(b, ';')
		return strconv.AppendInt(b, int64(base+i), 10)
	case ColorKindIndexed:
		if bg {
			b = append(b, ";48;5;"...)
		} else {
			b = append(b, ";38;5;"...)
		}
		return strconv.AppendInt(b, int64(c.Index()), 10)
	case ColorKindRGB:
		if bg {
			b = append(b, ";48;2;"...)
		} else {
			b = append(b, ";38;2;"...)
		}
		r, g, bl := c.RGB()
		b = strconv.AppendInt(b, int64(r), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(g), 10)
		b = append(b, ';')
		return strconv.AppendInt(b, int64(bl), 10)
	}
	return b
}

func (s *Screen) appendSGR(b []byte, c Cell) []byte {
	if c.Fg == 0 && c.Bg == 0 && c.Attr&renditionMask == 0 && c.ul == 0 {
		return append(b, "\x1b[0m"...)
	}
	b = append(b, "\x1b["...)
	b = s.appendSGRParams(b, c)
	return append(b, 'm')
}

// appendCellText appends the characters of one (non-continuation) cell.
func (s *Screen) appendCellText(b []byte, c Cell) []byte {
	switch {
	case c.R == 0:
		return append(b, ' ')
	case c.R < 0x80:
		return append(b, byte(c.R))
	case c.R >= clusterBase:
		return append(b, s.clusters[c.R-clusterBase]...)
	}
	return appendRune(b, c.R)
}

// trimDefaultBlanks drops the trailing cells no one wrote to.
func trimDefaultBlanks(cells []Cell) []Cell {
	end := len(cells)
	for end > 0 && isDefaultBlank(cells[end-1]) {
		end--
	}
	return cells[:end]
}

// appendStyledCells renders cells as text, with an SGR sequence wherever
// the style differs from *cur, the pen so far, which it updates.
func (s *Screen) appendStyledCells(b []byte, cells []Cell, cur *Cell) []byte {
	for _, c := range cells {
		if c.Attr&AttrWideCont != 0 {
			continue
		}
		if !sameStyle(c, *cur) {
			b = s.appendLinkSwitch(b, *cur, c)
			b = s.appendSGR(b, c)
			*cur = c
		}
		b = s.appendCellText(b, c)
	}
	return b
}

// appendANSILine renders cells with SGR sequences, dropping trailing
// default blanks; the pen is reset at the end of the line if it was used.
func (s *Screen) appendANSILine(b []byte, cells []Cell) []byte {
	var cur Cell
	b = s.appendStyledCells(b, trimDefaultBlanks(cells), &cur)
	if !sameStyle(cur, Cell{}) {
		b = s.appendLinkSwitch(b, cur, Cell{})
		b = append(b, "\x1b[0m"...)
	}
	return b
}

// ANSI returns the screen like `tmux capture-pane -p -e`: text with SGR
// sequences, one line per row, each followed by "\n". Colours keep their
// kind (31, 91, 38;5;N or 38;2;R;G;B). Unlike tmux, every line is
// self-contained (it starts from and returns to the default pen) and
// trailing blanks with a background colour are kept, so a slice of the
// output can be printed on its own.
func (s *Screen) ANSI(full bool) []byte {
	var b []byte
	s.eachLine(full, func(cells []Cell) {
		b = s.appendANSILine(b, cells)
		b = append(b, '\n')
	})
	return b
}

// RedrawPrefix starts every Redraw (pen and protection reset, autowrap
// on), so a reader of a baseline can tell the exact form from plain text.
const RedrawPrefix = "\x1b[0m\x1b[0\"q\x1b[?7h"

// Redraw returns bytes that reproduce the visible screen, cursor, modes,
// title and pen on a fresh terminal of the same size that has just been
// sent "ESC[2J ESC[H". It positions every row explicitly and never lets a
// character wrap or scroll the outer terminal. On the alternate screen the
// main screen is drawn first, then 1049 is entered, so leaving it later
// shows the right content.
func (s *Screen) Redraw() []byte {
	b := make([]byte, 0, s.rows*s.cols+256)
	b = append(b, RedrawPrefix...)
	b = append(b, "\x1b[?6l\x1b[4l"...)
	b = appendCharsets(b, [2]charset{}, 0)
	if s.altActive {
		// The main screen is drawn underneath so that the client shows
		// the right thing when the program leaves the alternate screen,
		// with the cursor and pen that 1049 saved and will restore.
		for y := 0; y < s.rows; y++ {
			b = s.appendRedrawRow(b, &s.main, y)
		}
		sc := s.saved[0]
		b = appendCUP(b, sc.y, sc.x)
		b = s.appendPen(b, sc.pen)
		b = appendCharsets(b, sc.charsets, sc.gl)
		if st := s.kitty[0]; len(st) > 0 && st[len(st)-1] != 0 {
			b = append(b, "\x1b[>"...)
			b = strconv.AppendInt(b, int64(st[len(st)-1]), 10)
			b = append(b, 'u')
		}
		b = append(b, "\x1b[?1049h\x1b[H\x1b[0m\x1b[0\"q"...)
		b = appendCharsets(b, [2]charset{}, 0)
	}
	for y := 0; y < s.rows; y++ {
		b = s.appendRedrawRow(b, s.g, y)
	}
	b = append(b, "\x1b[0m"...)

	// Tab stops, only when changed from the defaults.
	defTabs := true
	for i, t := range s.tabs {
		if t != (i%8 == 0 && i > 0) {
			defTabs = false
			break
		}
	}
	if !defTabs {
		b = append(b, "\x1b[3g"...)
		for i, t := range s.tabs {
			if t {
				b = appendCUP(b, 0, i)
				b = append(b, "\x1bH"...)
			}
		}
	}

	m := s.modes
	flag := func(on bool, seq string) {
		if on {
			b = append(b, seq...)
		}
	}
	// Modes are reset first so that a terminal that showed another
	// session before ends up in exactly this state.
	b = append(b, "\x1b[?1;9;40;1000;1002;1003;1006;1004;2004l\x1b>"...)
	flag(m.AppCursor, "\x1b[?1h")
	flag(s.allowColumns, "\x1b[?40h")
	flag(m.AppKeypad, "\x1b=")
	flag(m.BracketedPaste, "\x1b[?2004h")
	flag(m.MouseX10, "\x1b[?9h")
	flag(m.Mouse1000, "\x1b[?1000h")
	flag(m.Mouse1002, "\x1b[?1002h")
	flag(m.Mouse1003, "\x1b[?1003h")
	flag(m.MouseSGR1006, "\x1b[?1006h")
	flag(m.FocusEvents, "\x1b[?1004h")
	if f := s.kittyFlags(); f != 0 {
		b = append(b, "\x1b[>"...)
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, 'u')
	}
	if s.title != "" {
		b = append(b, "\x1b]2;"...)
		b = append(b, strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, s.title)...)
		b = append(b, "\x1b\\"...)
	}

	// The saved cursor (DECSC) of the active screen.
	if sc := s.saved[s.altIndex()]; sc.valid {
		// No margins are set yet, so origin-relative is absolute.
		flag(sc.origin, "\x1b[?6h")
		b = appendCUP(b, sc.y, sc.x)
		b = s.appendPen(b, sc.pen)
		b = appendCharsets(b, sc.charsets, sc.gl)
		b = append(b, "\x1b7"...)
		if sc.pen.Attr&AttrProtected != 0 {
			b = appendDECSCA(b, false)
		}
		flag(sc.origin, "\x1b[?6l")
		b = appendCharsets(b, [2]charset{}, 0)
	}

	if s.top != 0 || s.bottom != s.rows-1 {
		b = append(b, "\x1b["...)
		b = strconv.AppendInt(b, int64(s.top+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(s.bottom+1), 10)
		b = append(b, 'r')
	}

	// Origin mode homes the cursor, so it goes before positioning, which
	// is then relative to the top margin.
	flag(m.Origin, "\x1b[?6h")
	cy := s.y
	if m.Origin {
		cy -= s.top
	}
	// A pending wrap is reproduced by rewriting the last cell, which
	// leaves the cursor in the same pending state.
	if s.wrapNext {
		x := s.lastCellX()
		b = appendCUP(b, cy, x)
		b = s.appendCellAt(b, x)
	} else {
		b = appendCUP(b, cy, s.x)
	}
	flag(!m.Autowrap, "\x1b[?7l")
	flag(m.Insert, "\x1b[4h")
	if m.CursorHidden {
		b = append(b, "\x1b[?25l"...)
	} else {
		b = append(b, "\x1b[?25h"...)
	}
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(m.CursorShape), 10)
	b = append(b, " q"...)
	b = s.appendPen(b, s.pen)
	b = appendCharsets(b, s.charsets, s.gl)
	flag(m.SyncOutput, "\x1b[?2026h")
	return b
}

// AppendStreamState appends, for a reader that has drawn PeekANSI from
// the top of its screen and moved to the cursor, what the program's next
// output depends on besides where the cursor is: the scroll region, a
// pending wrap (the last cell written again, which leaves a reader as
// wide as the screen in the same state), the pen, the character sets,
// and the modes that change where text lands (autowrap, insert) or
// whether the cursor shows. The reader's terminal is assumed to be in
// its defaults otherwise, as PeekANSI leaves it. The region's rows are
// the screen's, right for a reader at least as tall.
func (s *Screen) AppendStreamState(b []byte) []byte {
	if s.top != 0 || s.bottom != s.rows-1 {
		// DECSTBM homes the cursor: save and restore it around.
		b = append(b, "\x1b7\x1b["...)
		b = strconv.AppendInt(b, int64(s.top+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(s.bottom+1), 10)
		b = append(b, "r\x1b8"...)
	}
	if s.wrapNext {
		x := s.lastCellX()
		b = append(b, '\r')
		if x > 0 {
			b = append(b, "\x1b["...)
			b = strconv.AppendInt(b, int64(x), 10)
			b = append(b, 'C')
		}
		b = s.appendCellAt(b, x)
	}
	m := s.modes
	if !m.Autowrap {
		b = append(b, "\x1b[?7l"...)
	}
	if m.Insert {
		b = append(b, "\x1b[4h"...)
	}
	if m.CursorHidden {
		b = append(b, "\x1b[?25l"...)
	}
	b = s.appendPen(b, s.pen)
	return appendCharsets(b, s.charsets, s.gl)
}

// lastCellX is the column of the cursor row's last cell: a pending wrap is
// reproduced by writing it again, which leaves the cursor in the same
// pending state. A wide character's cell is its first column.
func (s *Screen) lastCellX() int {
	cells := s.g.row(s.y).cells
	x := s.cols - 1
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		x--
	}
	return x
}

// appendCellAt writes the cursor row's cell x again, in its own pen.
func (s *Screen) appendCellAt(b []byte, x int) []byte {
	c := s.g.row(s.y).cells[x]
	b = s.appendPen(b, c)
	b = s.appendCellText(b, c)
	if c.Attr&AttrProtected != 0 {
		b = appendDECSCA(b, false)
	}
	return s.appendLinkSwitch(b, c, Cell{})
}

// appendPen appends the SGR and, when they are set, the DECSCA protection
// and the link of c, from a state where both are off.
func (s *Screen) appendPen(b []byte, c Cell) []byte {
	b = s.appendLinkSwitch(b, Cell{}, c)
	b = s.appendSGR(b, c)
	if c.Attr&AttrProtected != 0 {
		b = appendDECSCA(b, true)
	}
	return b
}

func appendDECSCA(b []byte, on bool) []byte {
	if on {
		return append(b, "\x1b[1\"q"...)
	}
	return append(b, "\x1b[0\"q"...)
}

func appendCharsets(b []byte, cs [2]charset, gl int) []byte {
	for i, c := range cs {
		b = append(b, 0x1b, "()"[i])
		if c == charsetDEC {
			b = append(b, '0')
		} else {
			b = append(b, 'B')
		}
	}
	if gl == 1 {
		return append(b, 0x0e)
	}
	return append(b, 0x0f)
}

func appendCUP(b []byte, y, x int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(x+1), 10)
	return append(b, 'H')
}

// appendRedrawRow draws one row. Blank cells are recreated with ECH (which
// keeps their background) and skipped with CUF, so they stay blank cells
// rather than becoming spaces.
func (s *Screen) appendRedrawRow(b []byte, g *grid, y int) []byte {
	cells := g.row(y).cells
	end := len(cells)
	for end > 0 && cells[end-1] == (Cell{}) {
		end--
	}
	if end == 0 {
		return b
	}
	b = appendCUP(b, y, 0)
	var cur Cell
	b = s.appendSGR(b, cur)
	prot := false // DECSCA, which erased cells never have
	for x := 0; x < end; {
		c := cells[x]
		if c.R == 0 && c.Attr&AttrWideCont == 0 {
			n := 1
			for x+n < end && cells[x+n].R == 0 && cells[x+n].Attr&AttrWideCont == 0 && cells[x+n] == c {
				n++
			}
			if c != (Cell{}) {
				if !sameStyle(c, cur) {
					b = s.appendLinkSwitch(b, cur, c)
					b = s.appendSGR(b, c)
					cur = c
				}
				b = append(b, "\x1b["...)
				b = strconv.AppendInt(b, int64(n), 10)
				b = append(b, 'X')
			}
			if x+n < s.cols {
				b = append(b, "\x1b["...)
				b = strconv.AppendInt(b, int64(n), 10)
				b = append(b, 'C')
			}
			x += n
			continue
		}
		if c.Attr&AttrWideCont != 0 {
			x++
			continue
		}
		if !sameStyle(c, cur) {
			b = s.appendLinkSwitch(b, cur, c)
			b = s.appendSGR(b, c)
			cur = c
		}
		if p := c.Attr&AttrProtected != 0; p != prot {
			b = appendDECSCA(b, p)
			prot = p
		}
		b = s.appendCellText(b, c)
		x++
	}
	if prot {
		b = appendDECSCA(b, false)
	}
	return s.appendLinkSwitch(b, cur, Cell{})
}
