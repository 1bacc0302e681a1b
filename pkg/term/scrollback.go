package term

// AppendHistory appends to b the newest n lines of the main screen's
// scrollback (all of it when n < 0) as a terminal of rows rows should
// receive them so that they enter its own scrollback, in order, with
// their colours: drawn from the top of a cleared screen, one line after
// the other, then scrolled off with line feeds, so that what follows
// (Redraw) finds the screen blank. The scrollback is the main screen's
// also while the alternate screen is active, which is where a terminal
// keeps its history too.
//
// A line that wrapped continues without a line break, so the terminal
// joins it as it would have; the others end in CR LF. SGR sequences
// appear only where the style changes, and the pen is reset before a
// line feed only if it has a background (which the new line would take).
// When the result would pass max bytes, the oldest lines are left out.
func (s *Screen) AppendHistory(b []byte, n, rows, max int) []byte {
	if n < 0 || n > s.hist.n {
		n = s.hist.n
	}
	if n == 0 || rows < 1 {
		return b
	}
	start := len(b)
	from := s.hist.n - n
	b = s.appendHistoryFrom(b, from, rows)
	if len(b)-start <= max {
		return b
	}
	// Too large: find how many of the newest lines fit by their sizes,
	// then serialise those alone, so the first of them starts from a
	// reset pen.
	b = b[:start]
	size := make([]int, 0, n)
	var buf []Cell
	for i := from; i < s.hist.n; i++ {
		buf = s.hist.at(i).appendCells(buf[:0])
		size = append(size, s.historyLineCost(buf))
	}
	budget := max - len(historyPrefix) - rows - len("\x1b[0m")
	for len(size) > 0 && budget >= size[len(size)-1] {
		budget -= size[len(size)-1]
		size = size[:len(size)-1]
	}
	if len(size) == n {
		return b
	}
	return s.appendHistoryFrom(b, from+len(size), rows)
}

// historyPrefix puts the terminal in the state the history is written
// in: default pen, no protection, autowrap on, origin mode and insert
// mode off, ASCII charsets.
const historyPrefix = RedrawPrefix + "\x1b[?6l\x1b[4l\x1b(B\x1b)B\x0f"

func (s *Screen) appendHistoryFrom(b []byte, from, rows int) []byte {
	b = append(b, historyPrefix...)
	var cur Cell
	var buf []Cell
	for i := from; i < s.hist.n; i++ {
		h := s.hist.at(i)
		buf = h.appendCells(buf[:0])
		cells := buf
		if !h.wrapped() {
			cells = trimDefaultBlanks(cells)
		}
		b = s.appendStyledCells(b, cells, &cur)
		// A line feed (ours, or the terminal's at a wrap) clears the
		// new bottom line with the pen's background.
		if cur.Bg != 0 || cur.Attr&AttrReverse != 0 {
			b = append(b, "\x1b[0m"...)
			cur = Cell{}
		}
		// The last line ends here even if it wrapped: its continuation
		// is the screen's first row, which Redraw draws.
		if !h.wrapped() || i == s.hist.n-1 {
			b = append(b, '\r', '\n')
		}
	}
	if cur != (Cell{}) {
		b = append(b, "\x1b[0m"...)
	}
	// Every line is now on the screen or above it; rows-1 more line
	// feeds push the last of them off the top.
	for i := 1; i < rows; i++ {
		b = append(b, '\n')
	}
	return b
}

// historyLineCost bounds what one line adds to AppendHistory's output.
func (s *Screen) historyLineCost(cells []Cell) int {
	n := 2 + len("\x1b[0m")
	var cur Cell
	for _, c := range cells {
		if c.Attr&AttrWideCont != 0 {
			continue
		}
		if !sameStyle(c, cur) {
			n += len(s.appendSGR(nil, c))
			cur = c
		}
		n += len(s.appendCellText(nil, c))
	}
	return n
}
