package term

import "strconv"

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
	b = s.appendHistoryFrom(b, from, rows, 0)
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
	return s.appendHistoryFrom(b, from+len(size), rows, 0)
}

// HistorySeq is the number of the newest line of the main screen's
// scrollback, counting every line that ever scrolled into it: a reader
// that has been given the lines up to some number gets the rest from
// AppendHistorySince. A resize keeps the numbers of the lines it keeps
// (the newest one's); one that pulls lines back onto a taller screen
// takes their numbers back.
func (s *Screen) HistorySeq() int64 { return s.histOff + int64(s.hist.seq) }

// AppendHistorySince is AppendHistory for the lines numbered after since
// (see HistorySeq): those that scrolled into the scrollback since a
// terminal was last given it. Lines among them that the scrollback no
// longer keeps, or that would take the result past max bytes, are
// replaced by one dim marker line that says how many are missing.
// Nothing is appended when no line is new.
func (s *Screen) AppendHistorySince(b []byte, since int64, rows, max int) []byte {
	newest := s.HistorySeq()
	if since >= newest || rows < 1 {
		return b
	}
	lost := newest - int64(s.hist.n) - since
	from := 0
	if lost < 0 {
		from, lost = int(-lost), 0
	}
	start := len(b)
	b = s.appendHistoryFrom(b, from, rows, lost)
	if len(b)-start <= max {
		return b
	}
	b = b[:start]
	budget := max - len(historyPrefix) - rows - len("\x1b[0m") - markerMax
	var buf []Cell
	keep := s.hist.n
	for keep > from {
		buf = s.hist.at(keep - 1).appendCells(buf[:0])
		c := s.historyLineCost(buf)
		if c > budget {
			break
		}
		budget -= c
		keep--
	}
	return s.appendHistoryFrom(b, keep, rows, lost+int64(keep-from))
}

// markerMax bounds the length of the marker line (appendMarker).
const markerMax = 96

// appendMarker writes the line that stands for n lines a terminal was
// never given, dim, ending in CR LF.
func (s *Screen) appendMarker(b []byte, n int64) []byte {
	b = append(b, "\x1b[0;2m[pty: "...)
	b = appendThousands(b, n)
	if n == 1 {
		b = append(b, " line not kept; the session keeps "...)
	} else {
		b = append(b, " lines not kept; the session keeps "...)
	}
	b = appendThousands(b, int64(s.hist.max))
	return append(b, "]\x1b[0m\r\n"...)
}

// Thousands is n as the marker line writes it: in decimal, with commas
// between thousands.
func Thousands(n int64) string { return string(appendThousands(nil, n)) }

// appendThousands writes n in decimal with commas between thousands.
func appendThousands(b []byte, n int64) []byte {
	d := strconv.AppendInt(nil, n, 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 && d[i-1] != '-' {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// historyPrefix puts the terminal in the state the history is written
// in: default pen, no protection, autowrap on, origin mode and insert
// mode off, ASCII charsets.
const historyPrefix = RedrawPrefix + "\x1b[?6l\x1b[4l\x1b(B\x1b)B\x0f"

// appendHistoryFrom writes the scrollback from line from on, after a
// marker for lost lines when there are any.
func (s *Screen) appendHistoryFrom(b []byte, from, rows int, lost int64) []byte {
	b = append(b, historyPrefix...)
	if lost > 0 {
		b = s.appendMarker(b, lost)
	}
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
			b = s.appendLinkSwitch(b, cur, Cell{})
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
		b = s.appendLinkSwitch(b, cur, Cell{})
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
			n += len(s.appendLinkSwitch(nil, cur, c)) + len(s.appendSGR(nil, c))
			cur = c
		}
		n += len(s.appendCellText(nil, c))
	}
	return n
}

// AppendHistoryLine appends the cells of the scrollback line numbered seq
// (see HistorySeq) to dst, at their stored length; ok is false when the
// scrollback no longer keeps that line (or never had it). A reader that
// shows the scrollback line by line (pty web) takes the lines after the
// last one it has this way.
func (s *Screen) AppendHistoryLine(dst []Cell, seq int64) (_ []Cell, ok bool) {
	newest := s.HistorySeq()
	i := int64(s.hist.n) - 1 - (newest - seq)
	if seq > newest || i < 0 {
		return dst, false
	}
	return s.hist.at(int(i)).appendCells(dst), true
}

// Scrollback is the number of lines the scrollback keeps at most (0: it
// keeps none).
func (s *Screen) Scrollback() int { return s.hist.max }
