package term

import (
	"slices"
	"unicode/utf8"
	"unsafe"
)

// histLine is a line that scrolled off the top of the main screen, stored
// compactly: trailing never-written cells are dropped, the characters are
// kept as UTF-8 (one rune per cell, wide continuation cells implied by the
// rune's width, NUL for an empty cell so that reflow can tell it from a
// written space) and the styling as run lengths serialised after the text in the
// same string, absent when the whole line uses the default pen. One
// allocation per line; a plain 80-column line costs its text plus a
// 32-byte header. Lines the compact form cannot represent exactly (grapheme
// clusters) keep their cells.
type histLine struct {
	data    string // text, then runLen-byte style runs
	raw     *[]Cell
	textLen int32
	wrapped bool
}

// A serialised style run: n uint16, attr uint16, fg uint32, bg uint32,
// little-endian, then the underline colour index (uint16) only when attr
// has runHasUL, so lines without underline colours pay nothing for them.
const runLen = 12

// runHasUL is an Attr bit that cells never use.
const runHasUL Attr = 1 << 15

type styleRun struct {
	runPen
	n uint16
}

// runPen is the pen of a style run; attr and ul share a word, so runs
// compare as three words.
type runPen struct {
	attr Attr
	ul   uint16
	fg   Color
	bg   Color
}

// run decodes the style run at byte offset off of h.data and returns the
// offset of the next one.
func (h *histLine) run(off int) (styleRun, int) {
	b := h.data[off:]
	_ = b[runLen-1]
	r := styleRun{n: uint16(b[0]) | uint16(b[1])<<8, runPen: runPen{
		attr: Attr(b[2]) | Attr(b[3])<<8,
		fg:   Color(b[4]) | Color(b[5])<<8 | Color(b[6])<<16 | Color(b[7])<<24,
		bg:   Color(b[8]) | Color(b[9])<<8 | Color(b[10])<<16 | Color(b[11])<<24,
	}}
	if r.attr&runHasUL == 0 {
		return r, off + runLen
	}
	r.attr &^= runHasUL
	r.ul = uint16(b[runLen]) | uint16(b[runLen+1])<<8
	return r, off + runLen + 2
}

// appendRun serialises a run without an underline colour (see
// appendRunUL); it is small enough to be inlined.
func appendRun(b []byte, r styleRun) []byte {
	return append(b, byte(r.n), byte(r.n>>8), byte(r.attr), byte(r.attr>>8),
		byte(r.fg), byte(r.fg>>8), byte(r.fg>>16), byte(r.fg>>24),
		byte(r.bg), byte(r.bg>>8), byte(r.bg>>16), byte(r.bg>>24))
}

func appendRunUL(b []byte, r styleRun) []byte {
	ul := r.ul
	r.attr |= runHasUL
	return append(appendRun(b, r), byte(ul), byte(ul>>8))
}

// encodeLine builds a histLine from screen cells. It is on the scrolling
// hot path, hence the single pass and the reused scratch buffers.
func (s *Screen) encodeLine(cells []Cell, wrapped bool) histLine {
	end := trimmedLen(cells)
	cells = cells[:end]
	h := histLine{wrapped: wrapped}
	if end == 0 {
		return h
	}
	if cap(s.scratch) < end*4 {
		s.scratch = make([]byte, 0, end*4)
	}
	buf := s.scratch[:end]
	// Leading run of default-pen ASCII: the common case, kept tight.
	// The second word of a cell is Bg, Attr and the underline colour.
	words := unsafe.Slice((*[2]uint64)(unsafe.Pointer(&cells[0])), end)
	i := 0
	for ; i < end; i++ {
		c := &cells[i]
		if c.R >= 0x80 || c.Fg != 0 || words[i][1] != 0 {
			break
		}
		buf[i] = byte(c.R)
	}
	if i == end {
		h.data = string(buf)
		h.textLen = int32(len(buf))
		return h
	}
	out := buf[:cap(buf)]
	k := i
	runs := s.scratchRuns[:0]
	var cur styleRun
	cur.n = uint16(i)
	addRun := func(n uint16, pen runPen) {
		if cur.runPen == pen {
			cur.n += n
			return
		}
		if cur.n > 0 {
			runs = append(runs, cur)
		}
		cur = styleRun{n: n, runPen: pen}
	}
	for i < end {
		c := &cells[i]
		fg, bg, attr, ul := c.Fg, c.Bg, c.Attr, c.ul
		if attr&(AttrWide|AttrWideCont) == 0 && c.R < 0x80 {
			// A run of ASCII cells sharing one pen.
			j := i + asciiRun(cells[i:end], out[k:])
			k += j - i
			addRun(uint16(j-i), runPen{attr, ul, fg, bg})
			i = j
			continue
		}
		r := c.R
		if attr&AttrWideCont != 0 {
			// Implied by its wide owner; a lone continuation cannot be
			// represented compactly.
			if i == 0 || cells[i-1].Attr&AttrWide == 0 {
				return rawLine(cells, wrapped)
			}
			i++
			continue
		}
		n := uint16(1)
		switch {
		case r < 0x80:
			out[k] = byte(r)
			k++
		default:
			if r >= clusterBase {
				return rawLine(cells, wrapped)
			}
			w := runeWidth(r)
			wide := attr&AttrWide != 0
			if w == 0 || (w == 2) != wide || wide && (i+1 >= end || cells[i+1].Attr&AttrWideCont == 0) {
				return rawLine(cells, wrapped)
			}
			if wide {
				n = 2
			}
			k += utf8.EncodeRune(out[k:], r)
		}
		addRun(n, runPen{attr & styleMask, ul, fg, bg})
		i++
	}
	buf = out[:k]
	runs = append(runs, cur)
	h.textLen = int32(len(buf))
	buf = appendRuns(buf, runs)
	h.data = string(buf)
	s.scratch, s.scratchRuns = buf[:0], runs[:0]
	return h
}

// appendRuns serialises the style runs of a line, none when the whole
// line has the default pen.
func appendRuns(buf []byte, runs []styleRun) []byte {
	if len(runs) == 1 && runs[0].runPen == (runPen{}) {
		return buf
	}
	for _, r := range runs {
		if r.ul != 0 {
			buf = appendRunUL(buf, r)
			continue
		}
		buf = appendRun(buf, r)
	}
	return buf
}

// encodeRow is encodeLine for a row of the current grid.
func (s *Screen) encodeRow(ln *line) histLine {
	if ln.mixed {
		return s.encodeLine(ln.written(), ln.wrapped)
	}
	// The row's encoding was kept up as it was printed.
	h := histLine{wrapped: ln.wrapped, textLen: int32(len(ln.text))}
	if len(ln.runs) == 1 && ln.runs[0].runPen == (runPen{}) {
		h.data = string(ln.text)
		return h
	}
	buf := appendRuns(append(s.scratch[:0], ln.text...), ln.runs)
	h.data = string(buf)
	s.scratch = buf[:0]
	return h
}

func rawLine(cells []Cell, wrapped bool) histLine {
	cp := append([]Cell(nil), cells...)
	return histLine{raw: &cp, wrapped: wrapped}
}

// decode writes the line into dst (len = screen width), padding with blanks
// and truncating what does not fit.
func (h *histLine) decode(dst []Cell) {
	clear(dst)
	var tmp []Cell
	if h.raw != nil {
		tmp = *h.raw
	} else {
		tmp = h.appendCells(make([]Cell, 0, h.textLen))
	}
	n := copy(dst, tmp)
	if n > 0 && n < len(tmp) && dst[n-1].Attr&AttrWide != 0 {
		dst[n-1] = Cell{}
	}
}

// appendCells appends the line's cells (at their stored length) to dst.
func (h *histLine) appendCells(dst []Cell) []Cell {
	if h.raw != nil {
		return append(dst, *h.raw...)
	}
	var st styleRun
	text := h.data[:h.textLen]
	off := len(text) // of the next style run
	left := 1 << 30  // cells left in the current run
	if off < len(h.data) {
		left = 0
	}
	dst = slices.Grow(dst, len(text))
	for i := 0; i < len(text); {
		for left <= 0 && off < len(h.data) {
			st, off = h.run(off)
			left = int(st.n)
		}
		// ASCII within the run, the bulk of any line, with field-wise
		// stores (see writeASCII).
		attrUL := packAttrUL(st.attr, st.ul)
		n := len(dst)
		for i < len(text) && left > 0 && text[i] < utf8.RuneSelf {
			dst = append(dst, Cell{})
			d := &dst[n]
			d.R = rune(text[i])
			d.Fg = st.fg
			d.Bg = st.bg
			d.setAttrUL(attrUL)
			n++
			i++
			left--
		}
		if i >= len(text) || text[i] < utf8.RuneSelf || left <= 0 && off < len(h.data) {
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		w := 1
		if r >= 0x300 {
			w = runeWidth(r)
		}
		left -= w
		if w == 2 {
			dst = append(dst,
				Cell{R: r, Fg: st.fg, Bg: st.bg, Attr: st.attr | AttrWide, ul: st.ul},
				Cell{Fg: st.fg, Bg: st.bg, Attr: st.attr | AttrWideCont, ul: st.ul})
			continue
		}
		dst = append(dst, Cell{R: r, Fg: st.fg, Bg: st.bg, Attr: st.attr, ul: st.ul})
	}
	return dst
}

// history is a ring of scrolled-off lines. It grows on demand up to max so
// an idle session does not pay for its full scrollback.
type history struct {
	lines []histLine
	start int // oldest line
	n     int
	max   int
}

func (h *history) push(l histLine) {
	if h.max <= 0 {
		return
	}
	if h.n < len(h.lines) {
		h.lines[(h.start+h.n)%len(h.lines)] = l
		h.n++
		return
	}
	if len(h.lines) < h.max {
		if h.start != 0 || len(h.lines) == cap(h.lines) {
			nc := min(max(2*len(h.lines), 64), h.max)
			nl := make([]histLine, len(h.lines), nc)
			for i := range h.n {
				nl[i] = h.lines[(h.start+i)%len(h.lines)]
			}
			h.lines, h.start = nl, 0
		}
		h.lines = append(h.lines, l)
		h.n++
		return
	}
	h.lines[h.start] = l
	h.start++
	if h.start == len(h.lines) {
		h.start = 0
	}
}

// at returns line i, 0 being the oldest.
func (h *history) at(i int) *histLine {
	return &h.lines[(h.start+i)%len(h.lines)]
}

// popNewest removes and returns the most recent line.
func (h *history) popNewest() histLine {
	p := h.at(h.n - 1)
	l := *p
	*p = histLine{}
	h.n--
	return l
}

func (h *history) clear() {
	clear(h.lines)
	h.start, h.n = 0, 0
}

// asciiRun copies the characters of the leading cells of c that are ASCII
// and share c[0]'s pen into out, returning how many it copied. It compares
// each cell as two machine words, which matters on the scrolling hot path.
func asciiRun(c []Cell, out []byte) int {
	if len(c) == 0 {
		return 0
	}
	// The mask selects Fg within the first word whatever the byte order.
	mask := Cell{Fg: ^Color(0)}
	fgMask := (*[2]uint64)(unsafe.Pointer(&mask))[0]
	words := unsafe.Slice((*[2]uint64)(unsafe.Pointer(&c[0])), len(c))
	pen0 := words[0][0] & fgMask
	pen1 := words[0][1] // Bg, Attr and the underline colour
	out = out[:len(words)]
	for j := range words {
		w := &words[j]
		r := c[j].R
		if r >= 0x80 || w[0]&fgMask != pen0 || w[1] != pen1 {
			return j
		}
		out[j] = byte(r)
	}
	return len(words)
}

// trimmedLen is the length of cells without the trailing cells that were
// never written (or erased with the default background): all-zero cells,
// skipped two words at a time. Written spaces are kept so that reflow
// (usedWidth) still sees them: a soft-wrapped row ending in a space must
// not lose it when it is joined again.
func trimmedLen(cells []Cell) int {
	end := len(cells)
	if end == 0 {
		return 0
	}
	words := unsafe.Slice((*[2]uint64)(unsafe.Pointer(&cells[0])), len(cells))
	for end > 0 && words[end-1] == [2]uint64{} {
		end--
	}
	return end
}
