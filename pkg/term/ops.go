package term

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// blank is the cell left behind by erase operations: xterm and tmux keep
// the current background colour (BCE) but nothing else.
func (s *Screen) blank() Cell { return Cell{Bg: s.pen.Bg} }

func fill(cells []Cell, c Cell) {
	if c == (Cell{}) {
		clear(cells)
		return
	}
	for i := range cells {
		cells[i] = c
	}
}

// printASCIIRun is the fast path: the run of printable ASCII starting at
// p[i] is written straight into the row with the current pen while it is
// scanned. It returns the index after the run.
func (s *Screen) printASCIIRun(p []byte, i int) int {
	if s.charsets[s.gl] != charsetASCII || s.modes.Insert || !s.modes.Autowrap {
		j := i + 1
		for j < len(p) && p[j] >= 0x20 && p[j] < 0x7f {
			j++
		}
		s.printASCII(p[i:j])
		return j
	}
	pen := runPen{s.pen.Attr & styleMask, s.pen.ul, s.pen.Fg, s.pen.Bg}
	w0, w1 := cellWords(Cell{Fg: pen.fg, Bg: pen.bg, Attr: pen.attr, ul: pen.ul})
	for {
		if s.wrapNext {
			s.wrap()
		}
		ln := s.g.row(s.y)
		cells := ln.cells
		x := s.x
		// Overwriting half of a wide character blanks the other half.
		if cells[x].Attr&AttrWideCont != 0 && x > 0 {
			cells[x-1] = s.blankKeep(cells[x-1])
		}
		lim := min(len(p)-i, len(cells)-x)
		dst := cells[x : x+lim]
		src := p[i : i+lim]
		n := storeASCII(dst, src, w0, w1)
		end := x + n
		if ln.mixed || s.altActive {
			ln.extend(end)
		} else {
			ln.appendASCII(x, src[:n], pen)
		}
		if end < len(cells) && cells[end].Attr&AttrWideCont != 0 {
			cells[end] = s.blankKeep(cells[end])
		}
		i += n
		s.lastRune = rune(p[i-1])
		if end >= len(cells) {
			s.x = len(cells) - 1
			s.wrapNext = true
		} else {
			s.x = end
		}
		if n < lim || i >= len(p) || p[i] < 0x20 || p[i] >= 0x7f {
			return i
		}
	}
}

// storeASCII writes the leading printable ASCII of src (up to len(dst))
// into dst, with the pen whose cell words are w0 and w1, and returns how
// many it wrote. It checks eight bytes at a time and stores whole words,
// and is kept a leaf: inlined into printASCIIRun, its loop spilled to the
// stack.
//
//go:noinline
func storeASCII(dst []Cell, src []byte, w0, w1 uint64) int {
	n := min(len(dst), len(src))
	if n == 0 {
		return 0
	}
	words := unsafe.Slice((*[2]uint64)(unsafe.Pointer(&dst[0])), n)
	src = src[:n]
	rUnit := cellRUnit()
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		// A byte below 0x20 borrows into its high bit; one above 0x7e
		// has it set, or gets it by adding 1.
		if ((x-0x20*ones)&^x|(x+ones)|x)&highs != 0 {
			break
		}
		// The bytes are loaded again rather than shifted out of x,
		// which would chain the eight stores one after the other.
		w, b := words[i:i+8:i+8], src[i:i+8:i+8]
		w[0] = [2]uint64{w0 | uint64(b[0])*rUnit, w1}
		w[1] = [2]uint64{w0 | uint64(b[1])*rUnit, w1}
		w[2] = [2]uint64{w0 | uint64(b[2])*rUnit, w1}
		w[3] = [2]uint64{w0 | uint64(b[3])*rUnit, w1}
		w[4] = [2]uint64{w0 | uint64(b[4])*rUnit, w1}
		w[5] = [2]uint64{w0 | uint64(b[5])*rUnit, w1}
		w[6] = [2]uint64{w0 | uint64(b[6])*rUnit, w1}
		w[7] = [2]uint64{w0 | uint64(b[7])*rUnit, w1}
	}
	for ; i < n; i++ {
		c := src[i]
		if c-0x20 >= 0x7f-0x20 {
			return i
		}
		words[i] = [2]uint64{w0 | uint64(c)*rUnit, w1}
	}
	return n
}

// printASCII writes a run of printable ASCII with the current pen,
// handling charsets, insert mode and disabled autowrap.
func (s *Screen) printASCII(b []byte) {
	if s.charsets[s.gl] != charsetASCII || s.modes.Insert {
		for _, c := range b {
			s.printRune(rune(c))
		}
		return
	}
	s.lastRune = rune(b[len(b)-1])
	tpl := Cell{Fg: s.pen.Fg, Bg: s.pen.Bg, Attr: s.pen.Attr & styleMask, ul: s.pen.ul}
	for len(b) > 0 {
		if s.wrapNext {
			s.wrap()
		}
		ln := s.g.row(s.y)
		x := s.x
		n := min(len(b), s.cols-x)
		if !s.modes.Autowrap && n < len(b) {
			// Without autowrap everything past the margin lands on the
			// last column; only the final byte survives.
			if n > 1 {
				s.writeASCII(ln, x, b[:n-1], tpl)
			}
			s.writeASCII(ln, s.cols-1, b[len(b)-1:], tpl)
			s.x = s.cols - 1
			return
		}
		s.writeASCII(ln, x, b[:n], tpl)
		b = b[n:]
		if x+n >= s.cols {
			s.x = s.cols - 1
			s.wrapNext = s.modes.Autowrap
		} else {
			s.x = x + n
		}
	}
}

func (s *Screen) writeASCII(ln *line, x int, b []byte, tpl Cell) {
	cells := ln.cells
	end := x + len(b)
	ln.extend(end)
	// Overwriting half of a wide character blanks the other half.
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		cells[x-1] = s.blankKeep(cells[x-1])
	}
	if end < len(cells) && cells[end].Attr&AttrWideCont != 0 {
		cells[end] = s.blankKeep(cells[end])
	}
	// Field-wise stores: copying a whole template Cell after patching R
	// on the stack stalls store forwarding and is several times slower.
	dst := cells[x:end]
	b = b[:len(dst)]
	fg, bg, attrUL := tpl.Fg, tpl.Bg, packAttrUL(tpl.Attr&styleMask, tpl.ul)
	for i := range dst {
		d := &dst[i]
		d.R = rune(b[i])
		d.Fg = fg
		d.Bg = bg
		d.setAttrUL(attrUL)
	}
}

// blankKeep turns half of a split wide character into a space with the
// same colours, as tmux does.
func (s *Screen) blankKeep(c Cell) Cell {
	return Cell{R: ' ', Fg: c.Fg, Bg: c.Bg, Attr: c.Attr & styleMask, ul: c.ul}
}

// wrap performs the deferred autowrap: mark the row as soft-wrapped and
// move to the start of the next line, scrolling if needed.
func (s *Screen) wrap() {
	s.g.row(s.y).wrapped = true
	s.wrapNext = false
	s.x = 0
	s.index()
}

// printRune handles one character outside the fast path: charsets, wide
// and combining characters, insert mode.
func (s *Screen) printRune(r rune) {
	if s.charsets[s.gl] == charsetDEC && r >= 0x5f && r <= 0x7e {
		r = decGraphics[r-0x5f]
	}
	w := runeWidth(r)
	if w == 0 {
		s.combine(r)
		return
	}
	s.lastRune = r
	if s.wrapNext {
		s.wrap()
	}
	if w == 2 && s.x == s.cols-1 {
		if s.cols < 2 {
			return
		}
		if s.modes.Autowrap {
			s.wrap()
		} else {
			s.x = s.cols - 2
		}
	}
	ln := s.g.row(s.y)
	cells := ln.cells
	if s.modes.Insert {
		s.insertCells(ln, s.x, w)
	}
	x := s.x
	s.splitWide(cells, x)
	if w == 2 {
		s.splitWide(cells, x+1)
	}
	end := x + w
	ln.extend(end)
	if end < s.cols && cells[end].Attr&AttrWideCont != 0 {
		cells[end] = s.blankKeep(cells[end])
	}
	// Field-wise stores, as in writeASCII.
	fg, bg, attr, ul := s.pen.Fg, s.pen.Bg, s.pen.Attr&styleMask, s.pen.ul
	d := &cells[x]
	d.R, d.Fg, d.Bg, d.ul = r, fg, bg, ul
	if w == 2 {
		d.Attr = attr | AttrWide
		d = &cells[x+1]
		d.R, d.Fg, d.Bg, d.Attr, d.ul = 0, fg, bg, attr|AttrWideCont, ul
	} else {
		d.Attr = attr
	}
	if end >= s.cols {
		s.x = s.cols - 1
		s.wrapNext = s.modes.Autowrap
	} else {
		s.x = end
	}
}

// splitWide blanks the other half of a wide character when position x is
// about to be overwritten.
func (s *Screen) splitWide(cells []Cell, x int) {
	if cells[x].Attr&(AttrWide|AttrWideCont) != 0 {
		s.splitWideSlow(cells, x)
	}
}

func (s *Screen) splitWideSlow(cells []Cell, x int) {
	a := cells[x].Attr
	if a&AttrWideCont != 0 && x > 0 {
		cells[x-1] = s.blankKeep(cells[x-1])
	} else if a&AttrWide != 0 && x+1 < len(cells) {
		cells[x+1] = s.blankKeep(cells[x+1])
	}
}

// breakWide blanks both halves of a wide character that covers x, for
// operations that move cells rather than overwrite them.
func (s *Screen) breakWide(cells []Cell, x int) {
	c := cells[x]
	switch {
	case c.Attr&AttrWide != 0:
		cells[x] = s.blankKeep(c)
		if x+1 < len(cells) {
			cells[x+1] = s.blankKeep(cells[x+1])
		}
	case c.Attr&AttrWideCont != 0:
		cells[x] = s.blankKeep(c)
		if x > 0 {
			cells[x-1] = s.blankKeep(cells[x-1])
		}
	}
}

// repeat prints r n times for REP. Printable ASCII, the usual case (a
// row of '-' or '='), goes through the fast path a buffer at a time.
func (s *Screen) repeat(r rune, n int) {
	if r < 0x20 || r >= 0x7f {
		for range n {
			s.printRune(r)
		}
		return
	}
	var buf [256]byte
	for i := range buf {
		buf[i] = byte(r)
	}
	for n > 0 {
		k := min(n, len(buf))
		s.printASCIIRun(buf[:k], 0)
		n -= k
	}
}

// combine attaches a zero-width rune to the previously written cell. A
// cell keeps at most maxClusterBytes of grapheme: marks past that are
// dropped, as xterm and tmux drop them, so that a base followed by
// endless marks costs neither memory nor more than a length check per
// mark.
func (s *Screen) combine(r rune) {
	x := s.x
	if !s.wrapNext {
		x--
	}
	if x < 0 {
		return
	}
	ln := s.g.row(s.y)
	cells := ln.cells
	if cells[x].Attr&AttrWideCont != 0 && x > 0 {
		x--
	}
	c := &cells[x]
	var buf [maxClusterBytes]byte
	var key []byte
	switch {
	case c.R >= clusterBase:
		base := s.clusters[c.R-clusterBase]
		if len(base)+utf8.RuneLen(r) > maxClusterBytes {
			return
		}
		key = append(buf[:0], base...)
	case c.R == 0:
		// A mark after a blank cell combines with a space, as in tmux.
		key = append(buf[:0], ' ')
	default:
		key = utf8.AppendRune(buf[:0], c.R)
	}
	key = utf8.AppendRune(key, r)
	id, ok := s.clusterIDs[string(key)]
	if !ok {
		if len(s.clusters) >= maxClusters && !s.compactClusters() {
			return
		}
		if s.clusterIDs == nil {
			s.clusterIDs = make(map[string]rune)
		}
		id = clusterBase + rune(len(s.clusters))
		str := string(key)
		s.clusters = append(s.clusters, str)
		s.clusterIDs[str] = id
	}
	ln.extend(x + 1)
	c.R = id
}

// compactClusters makes room in a full cluster table by dropping the
// clusters that no cell refers to any more (they scrolled out of the
// scrollback or were overwritten) and renumbering the rest, so that a
// long session does not lose combining marks for good once it has shown
// maxClusters distinct ones. It walks the screens and the scrollback
// lines that hold cells, so it runs only after as many marks have been
// dropped since the last walk as that walk visited cells: whatever the
// output, that is O(1) per mark. It reports whether there is room now.
func (s *Screen) compactClusters() bool {
	if s.clusterDrops < s.clusterWalk {
		s.clusterDrops++
		return false
	}
	remap := make([]rune, len(s.clusters)) // old index -> new rune, 0 if dead
	live := make([]string, 0, len(s.clusters)/2)
	walked := 0
	visit := func(cells []Cell) {
		walked += len(cells)
		for i := range cells {
			c := &cells[i]
			if c.R < clusterBase {
				continue
			}
			k := c.R - clusterBase
			if remap[k] == 0 {
				remap[k] = clusterBase + rune(len(live))
				live = append(live, s.clusters[k])
			}
			c.R = remap[k]
		}
	}
	for _, g := range []*grid{&s.main, &s.alt} {
		for i := range g.lines {
			visit(g.lines[i].cells)
		}
	}
	for i := range s.hist.n {
		if raw := s.hist.at(i).raw(); raw != nil {
			visit(raw)
		}
	}
	s.clusters = live
	s.clusterIDs = make(map[string]rune, len(live))
	for i, str := range live {
		s.clusterIDs[str] = clusterBase + rune(i)
	}
	s.clusterWalk, s.clusterDrops = walked, 0
	return len(s.clusters) < maxClusters
}

func (s *Screen) execute(b byte) {
	s.forgetLast()
	switch b {
	case 0x07:
		s.emit(Event{Type: "bell"})
	case 0x08:
		if s.x > 0 {
			s.x--
		}
		s.wrapNext = false
	case 0x09:
		s.tab(1)
	case 0x0a, 0x0b, 0x0c:
		// A pending wrap survives a line feed (tmux, alacritty).
		s.index()
	case 0x0d:
		s.x = 0
		s.wrapNext = false
	case 0x0e:
		s.gl = 1
	case 0x0f:
		s.gl = 0
	}
}

func (s *Screen) tab(n int) {
	if s.x >= s.cols-1 {
		// At the margin a tab does nothing, not even cancel a pending
		// wrap (tmux and xterm agree).
		return
	}
	for ; n > 0 && s.x < s.cols-1; n-- {
		s.x++
		for s.x < s.cols-1 && !s.tabs[s.x] {
			s.x++
		}
	}
	s.wrapNext = false
}

func (s *Screen) backTab(n int) {
	for ; n > 0 && s.x > 0; n-- {
		s.x--
		for s.x > 0 && !s.tabs[s.x] {
			s.x--
		}
	}
	s.wrapNext = false
}

// index moves down one line, scrolling the region at its bottom margin.
func (s *Screen) index() {
	if s.y == s.bottom {
		s.scrollUp(s.top, s.bottom, 1)
	} else if s.y < s.rows-1 {
		s.y++
	}
}

func (s *Screen) reverseIndex() {
	if s.y == s.top {
		s.scrollDown(s.top, s.bottom, 1)
	} else if s.y > 0 {
		s.y--
	}
}

// scrollUp scrolls rows top..bottom up by n. On the main screen the line
// leaving the region goes to the scrollback even when the region does not
// start at the top row: tmux does this, and it keeps the output of a
// scrolling panel reachable.
func (s *Screen) scrollUp(top, bottom, n int) {
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	keep := !s.altActive && s.hist.max > 0
	blank := s.blank()
	g := s.g
	if top == 0 && bottom == s.rows-1 {
		if !s.altActive && s.alt.lines != nil {
			if s.altKeep -= n; s.altKeep <= 0 {
				s.alt = grid{}
			}
		}
		for range n {
			ln := g.row(0)
			if keep {
				s.hist.push(s.encodeRow(ln))
			}
			ln.erase(blank)
			g.top++
			if g.top == len(g.lines) {
				g.top = 0
			}
		}
		return
	}
	for y := top; y < top+n; y++ {
		ln := g.row(y)
		if keep {
			s.hist.push(s.encodeRow(ln))
		}
		ln.erase(blank)
	}
	g.rotateUp(top, bottom, n)
}

func (s *Screen) scrollDown(top, bottom, n int) {
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	blank := s.blank()
	g := s.g
	g.rotateUp(top, bottom, bottom-top+1-n)
	for y := top; y < top+n; y++ {
		g.row(y).erase(blank)
	}
}

// rotateUp moves rows top..bottom up by n, the top n rows going to the
// bottom, in one pass whatever n: rotating a row at a time made a large
// count cost the region's height squared.
func (g *grid) rotateUp(top, bottom, n int) {
	if n <= 0 || n > bottom-top {
		return
	}
	g.reverse(top, top+n-1)
	g.reverse(top+n, bottom)
	g.reverse(top, bottom)
}

func (g *grid) reverse(a, b int) {
	for ; a < b; a, b = a+1, b-1 {
		ra, rb := g.row(a), g.row(b)
		*ra, *rb = *rb, *ra
	}
}

// moveTo positions the cursor, clamping to the screen (or to the scroll
// region in origin mode).
func (s *Screen) moveTo(y, x int) {
	s.wrapNext = false
	minY, maxY := 0, s.rows-1
	if s.modes.Origin {
		y += s.top
		minY, maxY = s.top, s.bottom
	}
	s.y = clamp(y, minY, maxY)
	s.x = clamp(x, 0, s.cols-1)
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func (s *Screen) cursorUp(n int) {
	lo := 0
	if s.y >= s.top {
		lo = s.top
	}
	s.y = max(s.y-n, lo)
	s.wrapNext = false
}

func (s *Screen) cursorDown(n int) {
	hi := s.rows - 1
	if s.y <= s.bottom {
		hi = s.bottom
	}
	s.y = min(s.y+n, hi)
	s.wrapNext = false
}

func (s *Screen) eraseCells(y, from, to int) {
	ln := s.g.row(y)
	cells := ln.cells
	from, to = max(from, 0), min(to, s.cols)
	if from >= to {
		return
	}
	if s.pen.Bg == 0 {
		if from >= int(ln.used) {
			// Erasing never-written cells with the default pen
			// changes nothing, and this way EL at the end of a log
			// line does not make the row mixed.
			return
		}
		ln.mixed = true
	} else {
		ln.extendBlank(to)
	}
	if cells[from].Attr&AttrWideCont != 0 && from > 0 {
		cells[from-1] = s.blankKeep(cells[from-1])
	}
	if to < s.cols && cells[to].Attr&AttrWideCont != 0 {
		cells[to] = s.blankKeep(cells[to])
	}
	s.fillKeepUsed(ln, from, to)
}

// fillKeepUsed erases cells[from:to]. Erased cells inside the row's
// written extent become spaces rather than empty cells, so the extent
// (usedWidth) does not shrink: as in tmux (whose cellused a partial erase
// does not reduce), reflow keeps the gap instead of joining what followed
// it to what preceded it. TUIs erase line tails all the time, so this is
// one pass from the end of the row's characters (ink), and none on the
// alternate screen, which is never reflowed.
func (s *Screen) fillKeepUsed(ln *line, from, to int) {
	cells := ln.cells
	b := s.blank()
	if s.altActive {
		fill(cells[from:to], b)
		return
	}
	ink := int(ln.ink)
	end := from // cells[from:end] are inside the extent
	if to < ink && usedWidth(cells[to:ink]) > 0 {
		end = to
	} else {
		if ink < to {
			// No characters to keep there.
			fill(cells[max(ink, from):to], b)
			to = max(ink, from)
		}
		// Scanning while erasing costs little; a separate scan
		// doubled the cost of EL.
		for i := to - 1; i >= from; i-- {
			c := &cells[i]
			if c.R != 0 || c.Attr&AttrWideCont != 0 {
				end = i + 1
				break
			}
			*c = b
		}
		// Nothing from end on has a character now.
		ln.ink = int32(end)
	}
	b.R = ' '
	fill(cells[from:end], b)
}

func (s *Screen) eraseDisplay(mode int) {
	if mode == 0 && s.x == 0 && s.y == 0 {
		// Erasing from the home position clears the whole screen;
		// tmux treats it as ED 2 for the scrollback too.
		mode = 2
	}
	switch mode {
	case 0:
		if s.x == 0 {
			s.eraseRow(s.y)
			s.unwrapAbove(s.y)
		} else {
			s.eraseCells(s.y, s.x, s.cols)
		}
		s.g.row(s.y).wrapped = false
		for y := s.y + 1; y < s.rows; y++ {
			s.eraseRow(y)
		}
	case 1:
		for y := 0; y < s.y; y++ {
			s.eraseRow(y)
		}
		if s.y > 0 {
			s.unwrapAbove(0)
		}
		if s.x >= s.cols-1 {
			s.eraseRow(s.y)
		} else {
			s.eraseCells(s.y, 0, s.x+1)
		}
	case 2:
		if !s.altActive && s.hist.max > 0 {
			// Like tmux's scroll-on-clear: the cleared content stays
			// reachable in the scrollback.
			last := -1
			for y := s.rows - 1; y >= 0; y-- {
				if ln := s.g.row(y); !rowUnused(ln.cells[:ln.ink]) {
					last = y
					break
				}
			}
			for y := 0; y <= last; y++ {
				s.hist.push(s.encodeRow(s.g.row(y)))
			}
		}
		for y := 0; y < s.rows; y++ {
			s.eraseRow(y)
		}
		s.unwrapAbove(0)
	case 3:
		s.hist.clear()
	}
	s.wrapNext = false
}

// rowUnused reports whether nothing was ever written to a row since it
// was last erased: only a background colour, if anything. Like tmux,
// clearing and resizing treat such rows as empty.
func rowUnused(cells []Cell) bool {
	for i := range cells {
		if cells[i].R != 0 || cells[i].Attr&(AttrWide|AttrWideCont) != 0 {
			return false
		}
	}
	return true
}

func (s *Screen) eraseRow(y int) {
	s.g.row(y).erase(s.blank())
}

// unwrapAbove ends the line that continued into row y, which was cleared
// or had lines inserted or deleted at it: the row above (for the top row
// of the main screen, the newest scrollback line) no longer wraps. tmux
// does the same, and reflow joins rows by these flags.
func (s *Screen) unwrapAbove(y int) {
	if y > 0 {
		s.g.row(y - 1).wrapped = false
	} else if !s.altActive && s.hist.n > 0 {
		if h := s.hist.at(s.hist.n - 1); h.wrapped() {
			h.setWrapped(false)
			s.hist.epoch++
		}
	}
}

// clearRow is an erase that covers the whole row (EL 2, EL 0 from the
// first column, EL 1 from the last, ECH of the whole row). Like tmux, it
// leaves a row that was never written to alone, unless it gets a colour.
func (s *Screen) clearRow(y int) {
	ln := s.g.row(y)
	if s.pen.Bg == 0 && rowZero(ln.written()) {
		return
	}
	s.eraseRow(y)
	s.unwrapAbove(y)
}

// rowZero reports whether a row holds only never-written cells.
func rowZero(cells []Cell) bool {
	for i := range cells {
		if cells[i] != (Cell{}) {
			return false
		}
	}
	return true
}

func (s *Screen) eraseLine(mode int) {
	// Only erases of the whole row end the line it belongs to; erasing
	// its tail keeps it wrapping into the next row, as in tmux.
	switch {
	case mode == 2, mode == 0 && s.x == 0, mode == 1 && s.x >= s.cols-1:
		s.clearRow(s.y)
	case mode == 0:
		s.eraseCells(s.y, s.x, s.cols)
	case mode == 1:
		s.eraseCells(s.y, 0, s.x+1)
	}
	s.wrapNext = false
}

// protectedIn reports whether any of cells[from:to] of row y is protected
// (DECSCA).
func (s *Screen) protectedIn(y, from, to int) bool {
	cells := s.g.row(y).cells
	for x := max(from, 0); x < min(to, s.cols); x++ {
		if cells[x].Attr&AttrProtected != 0 {
			return true
		}
	}
	return false
}

// selectiveErase erases the characters of cells[from:to] of row y that
// are not protected, a run at a time. A protected wide character is
// protected in both halves, so no run splits one.
func (s *Screen) selectiveErase(y, from, to int) {
	cells := s.g.row(y).cells
	from, to = max(from, 0), min(to, s.cols)
	for x := from; x < to; {
		if cells[x].Attr&AttrProtected != 0 {
			x++
			continue
		}
		end := x + 1
		for end < to && cells[end].Attr&AttrProtected == 0 {
			end++
		}
		s.eraseCells(y, x, end)
		x = end
	}
}

// selectiveEraseLine is DECSEL: EL sparing protected characters. With
// none in its range it is EL exactly.
func (s *Screen) selectiveEraseLine(mode int) {
	from, to := 0, s.cols
	switch mode {
	case 0:
		from = s.x
	case 1:
		to = s.x + 1
	case 2:
	default:
		s.eraseLine(mode)
		return
	}
	if !s.protectedIn(s.y, from, to) {
		s.eraseLine(mode)
		return
	}
	s.selectiveErase(s.y, from, to)
	s.wrapNext = false
}

// selectiveEraseDisplay is DECSED: ED sparing protected characters. With
// none in its range it is ED exactly (the screen going to the scrollback
// included); otherwise what is left of the screen stays where it is.
func (s *Screen) selectiveEraseDisplay(mode int) {
	// The range: rows y0..y1 whole, and the cursor row from x0 to x1.
	y0, y1, x0, x1 := 0, s.rows-1, 0, 0
	switch mode {
	case 0:
		y0, x0, x1 = s.y+1, s.x, s.cols
	case 1:
		y1, x1 = s.y-1, s.x+1
	case 2:
	default:
		s.eraseDisplay(mode)
		return
	}
	prot := s.protectedIn(s.y, x0, x1)
	for y := y0; y <= y1 && !prot; y++ {
		prot = s.protectedIn(y, 0, s.cols)
	}
	if !prot {
		s.eraseDisplay(mode)
		return
	}
	s.selectiveErase(s.y, x0, x1)
	for y := y0; y <= y1; y++ {
		s.selectiveErase(y, 0, s.cols)
	}
	s.wrapNext = false
}

// insertCells shifts cells at x right by n within the row.
func (s *Screen) insertCells(ln *line, x, n int) {
	cells := ln.cells
	n = min(n, s.cols-x)
	if n <= 0 {
		return
	}
	ln.touch()
	if cells[x].Attr&AttrWideCont != 0 {
		// The insertion splits a wide character.
		s.breakWide(cells, x)
	}
	copy(cells[x+n:], cells[x:])
	fill(cells[x:x+n], s.blank())
	if last := &cells[s.cols-1]; last.Attr&AttrWide != 0 {
		*last = s.blankKeep(*last)
	}
}

func (s *Screen) deleteCells(n int) {
	ln := s.g.row(s.y)
	cells := ln.cells
	x := s.x
	n = min(n, s.cols-x)
	if n <= 0 {
		return
	}
	ln.touch()
	// Only wide characters straddling an edge of the deleted span break.
	if cells[x].Attr&AttrWideCont != 0 {
		s.breakWide(cells, x)
	}
	if x+n < s.cols && cells[x+n].Attr&AttrWideCont != 0 {
		s.breakWide(cells, x+n)
	}
	used := 0
	if !s.altActive {
		used = usedWidth(cells)
	}
	copy(cells[x:], cells[x+n:])
	fill(cells[s.cols-n:], s.blank())
	if used > s.cols-n {
		// The written extent stays, as in fillKeepUsed.
		b := s.blank()
		b.R = ' '
		fill(cells[s.cols-n:used], b)
	}
	s.wrapNext = false
}

func (s *Screen) insertLines(n int) {
	if s.y < s.top || s.y > s.bottom {
		return
	}
	s.unwrapAbove(s.y)
	s.scrollDown(s.y, s.bottom, n)
	s.x = 0
	s.wrapNext = false
}

func (s *Screen) deleteLines(n int) {
	if s.y < s.top || s.y > s.bottom {
		return
	}
	// Deleted lines are discarded, never pushed to the scrollback.
	n = min(n, s.bottom-s.y+1)
	s.unwrapAbove(s.y)
	blank := s.blank()
	for y := s.y; y < s.y+n; y++ {
		s.g.row(y).erase(blank)
	}
	s.g.rotateUp(s.y, s.bottom, n)
	s.x = 0
	s.wrapNext = false
}

func (s *Screen) saveCursor() {
	s.saved[s.altIndex()] = savedCursor{
		x: s.x, y: s.y, pen: s.pen, origin: s.modes.Origin,
		charsets: s.charsets, gl: s.gl, valid: true,
	}
}

func (s *Screen) restoreCursor() {
	sc := s.saved[s.altIndex()]
	if !sc.valid {
		s.x, s.y = 0, 0
		s.pen = Cell{}
		s.wrapNext = false
		return
	}
	s.x, s.y = clamp(sc.x, 0, s.cols-1), clamp(sc.y, 0, s.rows-1)
	s.pen = sc.pen
	s.modes.Origin = sc.origin
	s.charsets, s.gl = sc.charsets, sc.gl
	s.wrapNext = false
}

func (s *Screen) setAlt(on, clearIt, cursor bool) {
	if on == s.altActive {
		return
	}
	if on {
		if cursor {
			s.saveCursor()
		}
		s.altActive = true
		if len(s.alt.lines) == 0 {
			s.alt = newGrid(s.rows, s.cols)
		} else if !clearIt {
			// The grid kept from the last time is not the fresh
			// one this mode starts from.
			for i := range s.alt.lines {
				s.alt.lines[i].erase(Cell{})
			}
		}
		s.g = &s.alt
		if clearIt {
			for y := 0; y < s.rows; y++ {
				s.eraseRow(y)
			}
		}
		if cursor {
			// The alt slot starts from the main cursor so DECRC on the
			// alt screen behaves like xterm.
			s.saved[1] = s.saved[0]
		}
		return
	}
	s.altActive = false
	s.g = &s.main
	// The grid is kept for a program that comes straight back (a loop
	// of them, or hostile output, would otherwise allocate a screen per
	// switch) and let go of once the main screen has scrolled a screenful
	// (see scrollUp): entering again starts from a cleared screen anyway.
	s.altKeep = s.rows
	if cursor {
		s.restoreCursor()
	}
}

func (s *Screen) decaln() {
	s.top, s.bottom = 0, s.rows-1
	s.modes.Origin = false
	for y := 0; y < s.rows; y++ {
		ln := s.g.row(y)
		fill(ln.cells, Cell{R: 'E'})
		ln.touch()
		ln.wrapped = false
	}
	s.x, s.y = 0, 0
	s.wrapNext = false
}

// deccolm is DECCOLM (mode 3) while mode 40 allows it. xterm switches
// between 80 and 132 columns; the size here is the clients' to choose, so
// only the rest of what xterm does happens: the screen is cleared (into
// the scrollback, like ED 2), the margins are reset and the cursor goes
// home.
func (s *Screen) deccolm(on bool) {
	s.col132 = on
	s.top, s.bottom = 0, s.rows-1
	s.eraseDisplay(2)
	s.moveTo(0, 0)
}

// fullReset is RIS. The scrollback and title survive, as in tmux.
func (s *Screen) fullReset() {
	wasHidden := s.modes.CursorHidden
	s.setAlt(false, false, false)
	s.resetState()
	for y := 0; y < s.rows; y++ {
		s.eraseRow(y)
	}
	s.alt = grid{}
	s.x, s.y = 0, 0
	if wasHidden {
		s.emit(Event{Type: "cursor_visible", Value: "true"})
	}
}

// softReset is DECSTR.
func (s *Screen) softReset() {
	if s.modes.CursorHidden {
		s.emit(Event{Type: "cursor_visible", Value: "true"})
	}
	s.modes.CursorHidden = false
	s.modes.Origin = false
	s.modes.Autowrap = true
	s.modes.Insert = false
	s.modes.AppCursor = false
	s.modes.AppKeypad = false
	s.top, s.bottom = 0, s.rows-1
	s.pen = Cell{}
	s.charsets = [2]charset{}
	s.gl = 0
	s.saved[s.altIndex()] = savedCursor{}
	s.wrapNext = false
}

// Resize changes the screen size, in tmux's order. When rows shrink, blank
// rows below the cursor are dropped first and then top rows go to the
// scrollback (main screen); growing pulls lines back from the scrollback.
// Then, when the width changes, the main screen and its scrollback are
// reflowed (see reflow.go); the alternate screen is cut or extended, as
// tmux and xterm do, since its program repaints it.
func (s *Screen) Resize(rows, cols int) {
	rows, cols = max(rows, 1), max(cols, 1)
	if rows == s.rows && cols == s.cols {
		return
	}
	if !s.altActive {
		// A kept alternate grid would have the old size.
		s.alt = grid{}
	}
	if rows != s.rows {
		s.resizeRows(rows)
	}
	if cols != s.cols {
		if s.altActive {
			// As for the height, the main screen is reflowed around
			// the cursor saved on entering the alternate screen.
			s.reflowMain(cols, &s.saved[0].x, &s.saved[0].y)
			s.resizeCols(&s.alt, cols)
			s.wrapNext = false
		} else {
			// A pending wrap is the column past the margin, here
			// as in tmux, and may be one again afterwards.
			if s.wrapNext {
				s.x = s.cols
			}
			s.reflowMain(cols, &s.x, &s.y)
			s.wrapNext = s.x >= cols
		}
		s.cols = cols
		old := s.tabs
		s.tabs = nil
		s.resetTabs(0)
		copy(s.tabs, old)
		for i := len(old); i < cols; i++ {
			s.tabs[i] = i%8 == 0
		}
	}
	s.top, s.bottom = 0, s.rows-1
	s.x = clamp(s.x, 0, s.cols-1)
	s.y = clamp(s.y, 0, s.rows-1)
	for i := range s.saved {
		s.saved[i].x = clamp(s.saved[i].x, 0, s.cols-1)
		s.saved[i].y = clamp(s.saved[i].y, 0, s.rows-1)
	}
}

func (s *Screen) resizeCols(g *grid, cols int) {
	ng := newGrid(len(g.lines), cols)
	for y := range ng.lines {
		src := g.row(y)
		dst := &ng.lines[y]
		n := copy(dst.cells, src.cells)
		if n > 0 && n < len(src.cells) && dst.cells[n-1].Attr&AttrWide != 0 {
			dst.cells[n-1] = Cell{}
		}
		dst.wrapped = src.wrapped && n == len(src.cells)
	}
	ng.retrim()
	*g = ng
}

func (s *Screen) resizeRows(rows int) {
	if s.altActive {
		// The main screen is resized as if it were active, around the
		// cursor saved on entering the alternate screen, so its prompt
		// is still there on return.
		s.main = s.resizeGrid(&s.main, rows, &s.saved[0].y, true)
		s.alt = s.resizeGrid(&s.alt, rows, &s.y, false)
		s.g = &s.alt
	} else {
		s.main = s.resizeGrid(&s.main, rows, &s.y, true)
		s.alt = grid{}
		s.g = &s.main
	}
	s.rows = rows
}

// resizeGrid changes a grid's height. Shrinking first drops blank rows
// below the cursor row *cy, then removes rows from the top (into the
// scrollback when withHist); growing pulls lines back from the scrollback
// when withHist. *cy is adjusted to stay on the same line.
func (s *Screen) resizeGrid(g *grid, rows int, cy *int, withHist bool) grid {
	old := len(g.lines)
	shift := 0
	if need := old - rows; need > 0 {
		drop := 0
		for drop < need {
			y := old - 1 - drop
			if y <= *cy || !rowUnused(g.row(y).cells) {
				break
			}
			drop++
		}
		shift = need - drop
	}
	ng, pulled := s.regrid(g, rows, shift, withHist)
	*cy = clamp(*cy-shift+pulled, 0, rows-1)
	return ng
}

// regrid builds a grid of the new height, removing shift rows from the top
// (into the scrollback when withHist) and, when growing with withHist,
// pulling lines back from the scrollback; it returns how many it pulled.
func (s *Screen) regrid(g *grid, rows, shift int, withHist bool) (grid, int) {
	old := len(g.lines)
	ng := newGrid(rows, s.cols)
	if withHist {
		for y := 0; y < shift; y++ {
			s.hist.push(s.encodeRow(g.row(y)))
		}
	}
	pull := 0
	if withHist && rows > old {
		pull = min(rows-old, s.hist.n)
		for y := pull - 1; y >= 0; y-- {
			h := s.hist.popNewest()
			h.decode(ng.lines[y].cells)
			ng.lines[y].wrapped = h.wrapped()
		}
	}
	for y := pull; y < rows && y-pull+shift < old; y++ {
		src := g.row(y - pull + shift)
		copy(ng.lines[y].cells, src.cells)
		ng.lines[y].wrapped = src.wrapped
	}
	ng.retrim()
	return ng, pull
}
