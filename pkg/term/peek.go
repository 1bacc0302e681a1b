package term

// PeekANSI is the screen (with full, the scrollback first) as ANSI shows
// it, but with lines separated by CR LF and no line breaks after the last
// non-empty line, for a reader that draws it on a terminal in raw mode.
// Of a text longer than max bytes, it keeps the last whole lines that fit.
// last is the row of the last line in it, counted from the first line of
// the whole (the scrollback's oldest with full, else the screen's top),
// whatever was cut; it is 0 when the text is empty.
//
// The lines are rendered from the last one back, so that what does not
// fit is never rendered, and the result is assembled once.
func (s *Screen) PeekANSI(full bool, max int) (b []byte, last int) {
	total := s.rows
	if full {
		total += s.hist.n
	}
	var arena []byte
	var ends []int // of each kept line in arena, newest first
	var buf []Cell
	size := 0
	last = -1
	for i := total - 1; i >= 0; i-- {
		var cells []Cell
		if y := i - (total - s.rows); y >= 0 {
			cells = s.g.row(y).cells
		} else {
			buf = s.hist.at(i).appendCells(buf[:0])
			cells = buf
		}
		start := len(arena)
		arena = s.appendANSILine(arena, cells)
		n := len(arena) - start
		if last < 0 {
			if n == 0 {
				continue // trailing blank rows
			}
			last = i
		}
		if len(ends) > 0 {
			n += 2 // its CR LF
		}
		if size+n > max {
			arena = arena[:start]
			break
		}
		size += n
		ends = append(ends, len(arena))
	}
	if last < 0 {
		return nil, 0
	}
	b = make([]byte, 0, size)
	for k := len(ends) - 1; k >= 0; k-- {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		b = append(b, arena[start:ends[k]]...)
		if k > 0 {
			b = append(b, '\r', '\n')
		}
	}
	return b, last
}
