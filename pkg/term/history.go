package term

import (
	"strings"
	"unicode/utf8"
)

// histLine is a line that scrolled off the top of the main screen, stored
// compactly: trailing blank cells are dropped, the characters are kept as a
// UTF-8 string (one rune per cell, wide continuation cells implied by the
// rune's width) and the styling as run lengths, nil when the whole line uses
// the default pen. A plain 80-column line therefore costs its text plus a
// 56-byte header. Lines the compact form cannot represent exactly (grapheme
// clusters) keep their cells.
type histLine struct {
	text    string
	runs    []styleRun
	raw     *[]Cell
	wrapped bool
}

type styleRun struct {
	n    uint16
	attr Attr
	fg   Color
	bg   Color
}

// encodeLine builds a histLine from screen cells.
func encodeLine(cells []Cell, wrapped bool) histLine {
	end := len(cells)
	for end > 0 && isDefaultBlank(cells[end-1]) {
		end--
	}
	cells = cells[:end]
	h := histLine{wrapped: wrapped}
	if end == 0 {
		return h
	}
	// Fast path: pure ASCII in the default pen.
	plain := true
	for i := range cells {
		c := cells[i]
		if c.R >= 0x80 || c.Fg != 0 || c.Bg != 0 || c.Attr != 0 {
			plain = false
			break
		}
	}
	if plain {
		buf := make([]byte, end)
		for i := range cells {
			r := cells[i].R
			if r == 0 {
				r = ' '
			}
			buf[i] = byte(r)
		}
		h.text = string(buf)
		return h
	}
	var sb strings.Builder
	sb.Grow(end)
	var runs []styleRun
	styled := false
	for i := 0; i < end; i++ {
		c := cells[i]
		if c.Attr&AttrWideCont != 0 {
			// Its wide owner was already written; a lone continuation
			// (should not happen) cannot be represented compactly.
			if i == 0 || cells[i-1].Attr&AttrWide == 0 {
				return rawLine(cells, wrapped)
			}
			continue
		}
		r := c.R
		if r >= clusterBase {
			return rawLine(cells, wrapped)
		}
		if r == 0 {
			r = ' '
		}
		w := runeWidth(r)
		wide := c.Attr&AttrWide != 0
		if w == 0 || (w == 2) != wide {
			return rawLine(cells, wrapped)
		}
		if wide && (i+1 >= end || cells[i+1].Attr&AttrWideCont == 0) {
			return rawLine(cells, wrapped)
		}
		sb.WriteRune(r)
		attr := c.Attr & styleMask
		if c.Fg != 0 || c.Bg != 0 || attr != 0 {
			styled = true
		}
		n := uint16(1)
		if wide {
			n = 2
		}
		if k := len(runs) - 1; k >= 0 && runs[k].attr == attr && runs[k].fg == c.Fg && runs[k].bg == c.Bg {
			runs[k].n += n
		} else {
			runs = append(runs, styleRun{n: n, attr: attr, fg: c.Fg, bg: c.Bg})
		}
	}
	h.text = sb.String()
	if styled {
		h.runs = append([]styleRun(nil), runs...)
	}
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
		tmp = h.appendCells(make([]Cell, 0, len(h.text)))
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
	run, left := 0, 0
	var st styleRun
	for i := 0; i < len(h.text); {
		r, size := rune(h.text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(h.text[i:])
		}
		i += size
		w := 1
		if r >= 0x300 {
			w = runeWidth(r)
		}
		if h.runs != nil {
			for left <= 0 && run < len(h.runs) {
				st = h.runs[run]
				left = int(st.n)
				run++
			}
			left -= w
		}
		if w == 2 {
			dst = append(dst,
				Cell{R: r, Fg: st.fg, Bg: st.bg, Attr: st.attr | AttrWide},
				Cell{Fg: st.fg, Bg: st.bg, Attr: st.attr | AttrWideCont})
			continue
		}
		dst = append(dst, Cell{R: r, Fg: st.fg, Bg: st.bg, Attr: st.attr})
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
