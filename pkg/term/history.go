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
// written space) and the styling as run lengths serialised after the text,
// absent when the whole line uses the default pen. The bytes live in the
// history's chunks (see history.store), so a plain 80-column line costs
// its text plus this 16-byte header. Lines the compact form cannot
// represent exactly (grapheme clusters) keep their cells.
//
// A histLine from encodeLine refers to the screen's scratch buffer until
// it is pushed, which copies it into the history.
type histLine struct {
	p    *byte  // the text and runs, or the first Cell when raw
	n    uint32 // bytes, or cells when raw
	meta uint32 // text length, histRaw, histWrapped
}

const (
	histWrapped = 1 << 31
	histRaw     = 1 << 30
	histTextLen = histRaw - 1
)

func newHistLine(data []byte, textLen int, wrapped bool) histLine {
	h := histLine{p: unsafe.SliceData(data), n: uint32(len(data)), meta: uint32(textLen)}
	h.setWrapped(wrapped)
	return h
}

func (h *histLine) wrapped() bool { return h.meta&histWrapped != 0 }

func (h *histLine) setWrapped(w bool) {
	h.meta &^= histWrapped
	if w {
		h.meta |= histWrapped
	}
}

// raw returns the cells of a line stored as cells, nil for the others.
func (h *histLine) raw() []Cell {
	if h.meta&histRaw == 0 {
		return nil
	}
	return unsafe.Slice((*Cell)(unsafe.Pointer(h.p)), h.n)
}

// data is the text followed by the style runs.
func (h *histLine) data() string { return unsafe.String(h.p, h.n) }

func (h *histLine) textLen() int { return int(h.meta & histTextLen) }

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

// run decodes the style run at byte offset off of h.data() and returns
// the offset of the next one.
func (h *histLine) run(off int) (styleRun, int) {
	b := h.data()[off:]
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
	if end == 0 {
		return newHistLine(nil, 0, wrapped)
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
		s.scratch = buf[:0]
		return newHistLine(buf, len(buf), wrapped)
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
	textLen := len(buf)
	buf = appendRuns(buf, runs)
	s.scratch, s.scratchRuns = buf[:0], runs[:0]
	return newHistLine(buf, textLen, wrapped)
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
	buf := appendRuns(append(s.scratch[:0], ln.text...), ln.runs)
	s.scratch = buf[:0]
	return newHistLine(buf, len(ln.text), ln.wrapped)
}

// rawLine keeps cells as they are, in an allocation of their own.
func rawLine(cells []Cell, wrapped bool) histLine {
	cp := append([]Cell(nil), cells...)
	h := histLine{p: (*byte)(unsafe.Pointer(unsafe.SliceData(cp))), n: uint32(len(cp)), meta: histRaw}
	h.setWrapped(wrapped)
	return h
}

// decode writes the line into dst (len = screen width), padding with blanks
// and truncating what does not fit.
func (h *histLine) decode(dst []Cell) {
	clear(dst)
	tmp := h.raw()
	if tmp == nil {
		tmp = h.appendCells(make([]Cell, 0, h.textLen()))
	}
	n := copy(dst, tmp)
	if n > 0 && n < len(tmp) && dst[n-1].Attr&AttrWide != 0 {
		dst[n-1] = Cell{}
	}
}

// appendCells appends the line's cells (at their stored length) to dst.
func (h *histLine) appendCells(dst []Cell) []Cell {
	if raw := h.raw(); raw != nil {
		return append(dst, raw...)
	}
	var st styleRun
	data := h.data()
	text := data[:h.textLen()]
	off := len(text) // of the next style run
	left := 1 << 30  // cells left in the current run
	if off < len(data) {
		left = 0
	}
	dst = slices.Grow(dst, len(text))
	for i := 0; i < len(text); {
		for left <= 0 && off < len(data) {
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
		if i >= len(text) || text[i] < utf8.RuneSelf || left <= 0 && off < len(data) {
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

// history is a ring of scrolled-off lines. It grows on demand up to max
// lines so an idle session does not pay for its full scrollback, and
// within MaxScrollbackBytes of memory: past it the oldest lines go, however few are
// left, so that a long scrollback of wide or colourful lines cannot take
// gigabytes.
//
// The lines' bytes are packed into chunks, oldest first. A chunk whose
// lines have all left the ring is reused for new lines, so a session
// scrolling continuously allocates nothing for its scrollback: no malloc
// per line and no garbage for the collector.
type history struct {
	lines []histLine
	start int // oldest line
	n     int
	max   int

	// bytes is the memory the history holds, counted as allocated: the
	// ring, the chunks in use and the lines stored apart (see apart).
	// The two spare chunks are not counted. maxBytes, when set, is a
	// budget lower than MaxScrollbackBytes (for tests).
	bytes    int
	maxBytes int

	seq uint64 // lines pushed so far, less those popped
	// epoch changes whenever a line already in the ring is removed
	// from its newest end or changed (see HistMark): lines keep their
	// number (seq at their push) only within an epoch.
	epoch  uint64
	chunks []histChunk // oldest first; the last is being filled
	// spare holds chunks whose lines are all gone, for reuse. Two,
	// because a chunk may come free just before another one does and
	// the current one fills.
	spare [2][]byte
}

// histChunkSize is the size of a chunk of line bytes. Lines longer than a
// quarter of it get an allocation of their own, so that a chunk wastes
// little at its end.
const histChunkSize = 16 << 10

type histChunk struct {
	buf  []byte
	last uint64 // seq of the newest line stored in buf
}

// MaxScrollbackBytes bounds the memory of a screen's scrollback, whatever
// its length in lines (Options.Scrollback): past it the oldest lines are
// dropped. A line of plain text costs its characters and 16 bytes, so
// the bound is reached only by lines far wider or more colourful than a
// terminal's usual ones, or by a scrollback far longer than the default.
const MaxScrollbackBytes = 64 << 20

// histLineSize is what a line costs in the ring.
const histLineSize = int(unsafe.Sizeof(histLine{}))

// push adds a line, copying its bytes into the history, then drops the
// oldest lines past maxBytes.
func (h *history) push(l histLine) {
	if h.max <= 0 {
		return
	}
	if h.n == h.max {
		// Drop the oldest line first so that its chunk can take the
		// new one.
		h.dropOldest()
	}
	if l.meta&histRaw == 0 {
		if l.n > 0 {
			l.p = h.store(unsafe.Slice(l.p, l.n))
		} else {
			l.p = nil
		}
	}
	h.bytes += apart(l)
	h.seq++
	if h.n < len(h.lines) {
		h.lines[(h.start+h.n)%len(h.lines)] = l
		h.n++
	} else {
		if h.start != 0 || len(h.lines) == cap(h.lines) {
			nc := min(max(2*len(h.lines), 64), h.max)
			nl := make([]histLine, len(h.lines), nc)
			for i := range h.n {
				nl[i] = h.lines[(h.start+i)%len(h.lines)]
			}
			h.bytes += (nc - cap(h.lines)) * histLineSize
			h.lines, h.start = nl, 0
		}
		h.lines = append(h.lines, l)
		h.n++
	}
	for h.n > 0 && (h.bytes > MaxScrollbackBytes || h.maxBytes > 0 && h.bytes > h.maxBytes) {
		h.dropOldest()
	}
}

// dropOldest removes the oldest line.
func (h *history) dropOldest() {
	h.bytes -= apart(h.lines[h.start])
	h.lines[h.start] = histLine{}
	h.start++
	if h.start == len(h.lines) {
		h.start = 0
	}
	h.n--
	h.release()
}

// apart is the memory of a line stored in an allocation of its own (raw
// cells, or bytes too long for a chunk: see store), 0 for one in a chunk.
func apart(l histLine) int {
	switch {
	case l.meta&histRaw != 0:
		return int(l.n) * int(unsafe.Sizeof(Cell{}))
	case l.n > histChunkSize/4:
		return int(l.n)
	}
	return 0
}

// store copies b, the bytes of line number h.seq, into the newest chunk.
func (h *history) store(b []byte) *byte {
	if len(b) > histChunkSize/4 {
		return unsafe.SliceData(slices.Clone(b))
	}
	k := len(h.chunks) - 1
	if k < 0 || len(b) > cap(h.chunks[k].buf)-len(h.chunks[k].buf) {
		buf := h.spare[0][:0]
		h.spare = [2][]byte{h.spare[1]}
		if buf == nil {
			buf = make([]byte, 0, histChunkSize)
		}
		h.bytes += cap(buf)
		h.chunks = append(h.chunks, histChunk{buf: buf})
		k++
	}
	c := &h.chunks[k]
	off := len(c.buf)
	c.buf = append(c.buf, b...)
	c.last = h.seq
	return &c.buf[off]
}

// release retires the chunks, other than the one being filled, that hold
// no line still in the ring.
func (h *history) release() {
	oldest := h.seq - uint64(h.n)
	for len(h.chunks) > 1 && h.chunks[0].last < oldest {
		h.bytes -= cap(h.chunks[0].buf)
		h.spare = [2][]byte{h.chunks[0].buf, h.spare[0]}
		h.chunks = append(h.chunks[:0], h.chunks[1:]...)
	}
}

// at returns line i, 0 being the oldest.
func (h *history) at(i int) *histLine {
	return &h.lines[(h.start+i)%len(h.lines)]
}

// popNewest removes and returns the most recent line. Its bytes stay
// valid until the next push.
func (h *history) popNewest() histLine {
	p := h.at(h.n - 1)
	l := *p
	*p = histLine{}
	h.n--
	h.seq--
	h.epoch++
	h.bytes -= apart(l)
	return l
}

func (h *history) clear() {
	clear(h.lines)
	h.start, h.n = 0, 0
	h.epoch++
	h.chunks, h.spare = nil, [2][]byte{}
	h.bytes = cap(h.lines) * histLineSize
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
