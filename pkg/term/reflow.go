package term

import "unicode/utf8"

// Reflow: when the width changes, the main screen and its scrollback are
// re-wrapped the way tmux does it (grid_reflow, screen_resize_cursor), as
// xterm.js (which the original pty used), kitty, VTE and alacritty do
// too. Cutting rows instead loses the cut-off text for good.
//
//   - A logical line is a run of rows joined by the wrapped flag. Its
//     content is the used cells of each row (up to the last written cell;
//     a cell left empty at the end of a row because a wide character did
//     not fit is not content) and it is split again greedily at the new
//     width. A wide character never straddles two rows.
//   - The scrollback and the screen are one sequence of lines; afterwards
//     the screen is the last rows lines (blank rows at the bottom are
//     lines too, as in tmux) and the rest is scrollback.
//   - The cursor stays on the same character of its logical line; when it
//     was at or past the end of its row's content it goes to the end of
//     the logical line. If that ends up in the scrollback, the cursor goes
//     home, as in tmux.
//   - A line that is a single row and fits is moved unchanged, trailing
//     background-coloured blanks included; from the scrollback it is not
//     even decoded, which keeps widening cheap.

// usedWidth is the number of cells up to and including the last written
// one. Erased cells (background colour only) do not count, as in tmux,
// whose cellused they do not extend.
func usedWidth(cells []Cell) int {
	for i := len(cells) - 1; i >= 0; i-- {
		if c := &cells[i]; c.R != 0 || c.Attr&(AttrWide|AttrWideCont) != 0 {
			return i + 1
		}
	}
	return 0
}

// widths returns the line's usedWidth and its number of cells without
// building the cells.
func (h *histLine) widths() (used, n int) {
	if raw := h.raw(); raw != nil {
		return usedWidth(raw), len(raw)
	}
	text := h.data()[:h.textLen()]
	for i := 0; i < len(text); {
		b := text[i]
		if b < 0x80 {
			i++
			n++
			if b != 0 {
				used = n
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if runeWidth(r) == 2 {
			n += 2
		} else {
			n++
		}
		used = n
	}
	return used, n
}

// reflower builds the reflowed main screen: output lines go through a ring
// of rows slots that becomes the new grid, and a line pushed out of the
// ring goes to the new scrollback.
type reflower struct {
	s     *Screen
	cols  int
	ng    grid
	hist  history
	hline []histLine // per slot: a scrollback line moved unchanged
	isH   []bool     // whether the slot holds hline rather than cells
	n     int        // lines produced so far
}

// slot returns the ring slot for the next output line, moving the line it
// held to the scrollback.
func (r *reflower) slot() int {
	rows := len(r.ng.lines)
	k := r.n % rows
	if r.n >= rows {
		ln := &r.ng.lines[k]
		if r.isH[k] {
			r.hist.push(r.hline[k])
		} else {
			// Not encodeRow: the slots are written directly, so
			// their extents and encodings are not kept up.
			r.hist.push(r.s.encodeLine(ln.cells, ln.wrapped))
		}
	}
	r.n++
	r.isH[k] = false
	r.hline[k] = histLine{}
	clear(r.ng.lines[k].cells)
	r.ng.lines[k].wrapped = false
	return k
}

func (r *reflower) moveHist(h histLine) {
	k := r.slot()
	r.isH[k] = true
	r.hline[k] = h
	r.ng.lines[k].wrapped = h.wrapped()
}

func (r *reflower) moveCells(cells []Cell, wrapped bool) {
	k := r.slot()
	dst := r.ng.lines[k].cells
	n := copy(dst, cells)
	if n > 0 && n < len(cells) && dst[n-1].Attr&AttrWide != 0 {
		dst[n-1] = Cell{}
	}
	r.ng.lines[k].wrapped = wrapped
}

// Cursor offsets for split besides a cell offset.
const (
	offEnd  = -1 // the end of the line
	offNone = -2 // the cursor is not in this line
)

// split writes the content of a logical line as rows of the new width and
// returns where the cell at offset off (or offEnd) landed: the output line
// and the column.
func (r *reflower) split(buf []Cell, off int) (line, x int) {
	start := 0
	line, x = -1, 0
	for {
		k := r.slot()
		dst := r.ng.lines[k].cells
		i, w := r.fit(buf, start)
		// The cells that fit are the last w before i: skipping happens
		// only before the first one fits.
		copy(dst, buf[i-w:i])
		more := i < len(buf)
		r.ng.lines[k].wrapped = more
		if off >= 0 && line < 0 && (off < i || !more) {
			line, x = r.n-1, min(max(off-start, 0), r.cols-1)
		}
		if !more {
			if off == offEnd {
				line, x = r.n-1, w
			}
			return line, x
		}
		start = i
	}
}

// fit returns where the row of the new width that starts at buf[start]
// ends, and how many columns its cells take.
func (r *reflower) fit(buf []Cell, start int) (i, w int) {
	for i = start; i < len(buf); {
		unit := 1
		if buf[i].Attr&AttrWide != 0 && i+1 < len(buf) && buf[i+1].Attr&AttrWideCont != 0 {
			unit = 2
		}
		if w+unit > r.cols {
			if w == 0 {
				// A wide character on a 1-column screen: nothing
				// can show it.
				i += unit
				continue
			}
			break
		}
		w += unit
		i += unit
	}
	return i, w
}

// maxJoin is how many cells of a logical line reflowMain joins before it
// writes out the rows they fill: a scrollback that is one long line (output
// without a newline) would otherwise be joined whole, at 16 bytes a cell.
const maxJoin = 1 << 16

// splitHead writes the rows of the new width that buf fills and are
// followed by more of it, each wrapped, and returns where the rest starts:
// the part of a logical line that more rows will continue.
func (r *reflower) splitHead(buf []Cell) int {
	start := 0
	for {
		i, w := r.fit(buf, start)
		if i >= len(buf) {
			return start
		}
		k := r.slot()
		copy(r.ng.lines[k].cells, buf[i-w:i])
		r.ng.lines[k].wrapped = true
		start = i
	}
}

// reflowMain re-wraps the main screen and the scrollback at cols. (cx, cy)
// is the cursor on the main screen, past the last column (cx == s.cols)
// for a pending wrap; it is updated the same way, cx == cols meaning a
// pending wrap at the new width.
func (s *Screen) reflowMain(cols int, cx, cy *int) {
	rows := len(s.main.lines)
	r := &reflower{s: s, cols: cols, ng: newGrid(rows, cols),
		hline: make([]histLine, rows), isH: make([]bool, rows)}
	r.hist.max, r.hist.maxBytes = s.hist.max, s.hist.maxBytes

	var buf, tmp []Cell
	curLine, curX := -1, 0
	inLine := false   // collecting a logical line of several rows
	cursorIn := false // the cursor is in it
	curOff := offEnd
	total := s.hist.n + rows
	for i := 0; i < total; i++ {
		var h *histLine
		var cells []Cell
		var wrapped bool
		isCur := i-s.hist.n == *cy
		if i < s.hist.n {
			h = s.hist.at(i)
			wrapped = h.wrapped()
		} else {
			ln := s.main.row(i - s.hist.n)
			cells, wrapped = ln.cells, ln.wrapped
		}
		if i == total-1 {
			// Nothing follows to join.
			wrapped = false
		}
		if !inLine && !wrapped {
			// A line of one row: moved unchanged when it fits.
			if h != nil {
				if used, n := h.widths(); n <= cols && used <= cols {
					r.moveHist(*h)
					continue
				}
			} else if used := usedWidth(cells); used <= cols {
				r.moveCells(cells, false)
				if isCur {
					curLine, curX = r.n-1, min(*cx, used)
				}
				continue
			}
		}
		if h != nil {
			tmp = h.appendCells(tmp[:0])
			cells = tmp
		}
		used := usedWidth(cells)
		if isCur {
			cursorIn = true
			if *cx < used {
				curOff = len(buf) + *cx
			}
		}
		buf = append(buf, cells[:used]...)
		if inLine = wrapped; inLine {
			if len(buf) >= maxJoin && !cursorIn {
				buf = buf[:copy(buf, buf[r.splitHead(buf):])]
			}
			continue
		}
		off := offNone
		if cursorIn {
			off = curOff
		}
		line, x := r.split(buf, off)
		if cursorIn {
			curLine, curX = line, x
		}
		buf, cursorIn, curOff = buf[:0], false, offEnd
	}

	// The last rows lines are the screen.
	ng := r.ng
	top := max(r.n-rows, 0)
	if r.n >= rows {
		ng.top = r.n % rows
	}
	for k := range rows {
		if r.isH[k] {
			r.hline[k].decode(ng.lines[k].cells)
		}
	}
	ng.retrim()
	r.hist.epoch = s.hist.epoch + 1 // every line is new
	s.histOff += int64(s.hist.seq) - int64(r.hist.seq)
	s.main, s.hist = ng, r.hist
	if curLine < top {
		*cx, *cy = 0, 0
		return
	}
	*cx, *cy = curX, curLine-top
}
