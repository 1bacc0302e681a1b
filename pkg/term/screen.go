package term

import "unicode/utf8"

// Options configures a Screen.
type Options struct {
	// Scrollback is the number of lines of scrollback kept for the main
	// screen; 0 means the default of 10000, negative means none. A line
	// is a row as the screen showed it: a long line that wrapped takes
	// as many. Whatever the number, the oldest lines are dropped past
	// MaxScrollbackBytes of memory.
	Scrollback int
	// Reply receives answers to terminal queries (DA, DSR, XTVERSION, OSC
	// colour queries, ...). It is called synchronously from Write and must
	// not block. May be nil.
	Reply func(b []byte)
	// OnEvent receives terminal events synchronously from Write. May be nil.
	OnEvent func(e Event)
	// Version is reported in the XTVERSION reply as "pty(Version)"; empty
	// means "dev".
	Version string
}

// DefaultScrollback is the scrollback length used when Options.Scrollback
// is 0.
const DefaultScrollback = 10000

// Event is something the child did that the host may want to surface.
type Event struct {
	// Type is "bell", "title_change", "notification", "focus_request" or
	// "cursor_visible".
	Type string
	// Value is the new title for title_change and "true"/"false" for
	// cursor_visible.
	Value string
	// Title, Body and Source ("osc9", "osc99", "osc777") describe a
	// notification.
	Title, Body, Source string
}

// Modes is a snapshot of the terminal modes a host cares about.
type Modes struct {
	AltScreen          bool
	AppCursor          bool // DECCKM ?1
	AppKeypad          bool // DECKPAM ESC =
	BracketedPaste     bool // ?2004
	MouseX10           bool // ?9
	Mouse1000          bool
	Mouse1002          bool
	Mouse1003          bool
	MouseSGR1006       bool
	FocusEvents        bool // ?1004
	CursorHidden       bool // ?25 reset
	CursorShape        int  // DECSCUSR parameter, 0 = default
	KittyKeyboardFlags int  // top of the active screen's kitty keyboard stack
	SyncOutput         bool // ?2026
	Origin             bool // DECOM ?6
	Autowrap           bool // DECAWM ?7
	Insert             bool // IRM 4
}

type charset uint8

const (
	charsetASCII charset = iota
	charsetDEC
)

// line is one row of a grid. Rows of a grid share one allocation.
type line struct {
	cells []Cell
	// used bounds the written part of the row: cells[used:] are all
	// never-written (zero) cells. Scrolling a row out encodes and clears
	// only cells[:used], which for log output is half a row or less; the
	// printing paths raise it and everything else sets it to the full
	// width (see touch).
	used int32
	// ink bounds the characters in the row: cells[ink:] have no rune
	// (they are never written or erased), so erasing there need not look
	// for text to keep (see fillKeepUsed).
	ink     int32
	wrapped bool // the row continues on the next one (soft wrap)
	// mixed is set once the row is written other than by appending
	// ASCII at its end. Until then text and runs are what encodeLine
	// would make of cells[:used], kept up as the row is printed, so that
	// scrolling a log line out costs a copy rather than a pass over its
	// cells (see encodeRow).
	mixed bool
	text  []byte
	runs  []styleRun
}

// extend records that characters may have been written to cells[:end],
// by anything but appendASCII.
func (ln *line) extend(end int) {
	ln.extendBlank(end)
	if int32(end) > ln.ink {
		ln.ink = int32(end)
	}
}

// extendBlank records that erased cells (no rune, a background colour)
// may have been written to cells[:end].
func (ln *line) extendBlank(end int) {
	if int32(end) > ln.used {
		ln.used = int32(end)
	}
	ln.mixed = true
}

// touch records that any cell of the row may have been written, for the
// rare operations not worth tracking precisely.
func (ln *line) touch() {
	ln.used = int32(len(ln.cells))
	ln.ink = ln.used
	ln.mixed = true
}

// appendASCII records that the printable ASCII b was written at column x
// with the pen (whose Attr has only style bits) while the row was not
// mixed. Never-written cells between the end of the row and x are NULs
// with the default pen in the encoding.
func (ln *line) appendASCII(x int, b []byte, pen runPen) {
	if gap := x - int(ln.used); gap != 0 {
		if gap < 0 {
			ln.extend(x + len(b))
			return
		}
		ln.text = append(ln.text, make([]byte, gap)...)
		ln.addRun(gap, runPen{})
	}
	ln.text = append(ln.text, b...)
	ln.used = int32(x + len(b))
	ln.ink = ln.used
	ln.addRun(len(b), pen)
}

func (ln *line) addRun(n int, pen runPen) {
	if k := len(ln.runs) - 1; k >= 0 && ln.runs[k].runPen == pen {
		ln.runs[k].n += uint16(n)
		return
	}
	ln.runs = append(ln.runs, styleRun{runPen: pen, n: uint16(n)})
}

// erase fills the row with c and ends its soft wrap.
func (ln *line) erase(c Cell) {
	if c == (Cell{}) {
		clear(ln.cells[:ln.used])
		ln.used, ln.ink = 0, 0
		ln.mixed = false
		ln.text, ln.runs = ln.text[:0], ln.runs[:0]
	} else {
		fill(ln.cells, c)
		ln.touch()
		if c.R == 0 && c.Attr&(AttrWide|AttrWideCont) == 0 {
			ln.ink = 0
		}
	}
	ln.wrapped = false
}

// written returns the row's cells that may have been written.
func (ln *line) written() []Cell { return ln.cells[:ln.used] }

// grid is a screen-sized ring of rows: a full-screen scroll only advances
// top, so scrolling never moves cell data.
type grid struct {
	lines []line
	top   int
}

func newGrid(rows, cols int) grid {
	g := grid{lines: make([]line, rows)}
	backing := make([]Cell, rows*cols)
	for i := range g.lines {
		g.lines[i].cells = backing[i*cols : (i+1)*cols : (i+1)*cols]
	}
	return g
}

// retrim recomputes the rows' extents after cells were written directly
// (resizing).
func (g *grid) retrim() {
	for i := range g.lines {
		ln := &g.lines[i]
		ln.used = int32(trimmedLen(ln.cells))
		ln.ink = int32(usedWidth(ln.cells))
		ln.mixed = ln.used > 0
		ln.text, ln.runs = ln.text[:0], ln.runs[:0]
	}
}

func (g *grid) row(y int) *line {
	i := g.top + y
	if i >= len(g.lines) {
		i -= len(g.lines)
	}
	return &g.lines[i]
}

// savedCursor is the state kept by DECSC.
type savedCursor struct {
	x, y     int
	pen      Cell
	origin   bool
	charsets [2]charset
	gl       int
	valid    bool
}

// Screen is an in-memory terminal emulator. It is not safe for concurrent
// use; callers serialise access (the daemon holds a mutex).
type Screen struct {
	rows, cols int
	opts       Options

	main, alt grid  // alt is allocated while in use and a little after
	altKeep   int   // lines the main screen scrolls before alt is let go
	g         *grid // active grid
	altActive bool
	hist      history
	// histOff makes line numbers (HistorySeq) outlive a reflow, which
	// rebuilds hist: the newest line keeps its number.
	histOff int64

	x, y     int
	wrapNext bool // pending wrap: the last column was just written
	pen      Cell // R unused; Fg, Bg, Attr of the next printed cell

	top, bottom int // scroll region, inclusive
	tabs        []bool

	saved    [2]savedCursor // main, alt
	charsets [2]charset     // G0, G1
	gl       int            // which of G0/G1 is invoked

	modes      Modes
	kitty      [2][]int // kitty keyboard flag stacks, main and alt
	title      string
	titles     []string // XTWINOPS title stack
	lastRune   rune
	clusters   []string
	clusterIDs map[string]rune
	ulColors   []Color // underline colours; [0] is the default
	ulIDs      map[Color]uint16
	links      linkTable // OSC 8 hyperlinks, which ulColors entries refer to

	// clusterWalk is how many cells the last compactClusters visited,
	// and clusterDrops how many marks were dropped since, for a full
	// table.
	clusterWalk, clusterDrops int

	// allowColumns is mode 40 (allow 80/132 columns): without it DECCOLM
	// does nothing, as in xterm. col132 is what the last DECCOLM asked
	// for, reported by DECRQM; the width itself never changes.
	allowColumns, col132 bool

	p      parser
	utf8   [utf8.UTFMax]byte
	utf8n  int
	inOSC  bool
	osc    []byte
	oscEsc bool // OSC was ended by ESC (reply with ST)

	scratch     []byte     // encodeLine buffers
	scratchRuns []styleRun // (reused to avoid garbage)
	markBuf     []Cell     // AppendMarkedLine's line

	kittyPending struct{ title, body []byte } // OSC 99 chunks awaiting d=1
}

// maxOSC bounds an OSC payload kept in memory; the rest is discarded but
// still scanned for the terminator.
const maxOSC = 1 << 16

// New returns a Screen of the given size.
func New(rows, cols int, opts Options) *Screen {
	rows, cols = max(rows, 1), max(cols, 1)
	s := &Screen{rows: rows, cols: cols, opts: opts}
	switch {
	case opts.Scrollback == 0:
		s.hist.max = DefaultScrollback
	case opts.Scrollback > 0:
		s.hist.max = opts.Scrollback
	}
	s.main = newGrid(rows, cols)
	s.g = &s.main
	s.p.s = s
	s.p.reset()
	s.resetState()
	return s
}

// resetState puts modes, pen, margins and tabs in their power-on state.
func (s *Screen) resetState() {
	s.pen = Cell{}
	s.top, s.bottom = 0, s.rows-1
	s.resetTabs(0)
	s.charsets = [2]charset{}
	s.gl = 0
	s.saved = [2]savedCursor{}
	s.kitty = [2][]int{}
	s.wrapNext = false
	s.modes = Modes{Autowrap: true}
	s.allowColumns, s.col132 = false, false
}

func (s *Screen) resetTabs(from int) {
	if len(s.tabs) != s.cols {
		t := make([]bool, s.cols)
		copy(t, s.tabs)
		s.tabs = t
	}
	for i := from; i < s.cols; i++ {
		s.tabs[i] = i%8 == 0 && i > 0
	}
}

// Size returns the screen dimensions.
func (s *Screen) Size() (rows, cols int) { return s.rows, s.cols }

// Cursor returns the 0-based cursor position and whether it is visible.
// After a character is written in the last column the cursor stays there
// (the wrap happens with the next character), as xterm reports it.
func (s *Screen) Cursor() (row, col int, visible bool) {
	return s.y, s.x, !s.modes.CursorHidden
}

// Title returns the window title set by OSC 0/2.
func (s *Screen) Title() string { return s.title }

// ScrollbackLen returns the number of lines in the main screen's scrollback.
func (s *Screen) ScrollbackLen() int { return s.hist.n }

// Modes returns the current modes.
func (s *Screen) Modes() Modes {
	m := s.modes
	m.AltScreen = s.altActive
	m.KittyKeyboardFlags = s.kittyFlags()
	return m
}

// Cell returns the cell at row, col of the visible screen (0-based). Out of
// range positions return a blank cell.
func (s *Screen) Cell(row, col int) Cell {
	if row < 0 || row >= s.rows || col < 0 || col >= s.cols {
		return Cell{}
	}
	return s.g.row(row).cells[col]
}

// UnderlineColor returns the underline colour of a cell (SGR 58),
// ColorDefault when it has none and the underline takes the text colour.
func (s *Screen) UnderlineColor(c Cell) Color {
	if int(c.ul) >= len(s.ulColors) {
		return ColorDefault
	}
	return s.ulColors[c.ul]
}

// ulIndex interns an underline colour. The table only grows (cells in the
// scrollback refer to it) and is bounded by maxULColors.
func (s *Screen) ulIndex(c Color) uint16 {
	if c == ColorDefault {
		return 0
	}
	if id, ok := s.ulIDs[c]; ok {
		return id
	}
	if len(s.ulColors) == 0 {
		s.ulColors = append(s.ulColors, ColorDefault)
		s.ulIDs = make(map[Color]uint16)
	}
	if len(s.ulColors) > maxULColors {
		return 0
	}
	id := uint16(len(s.ulColors))
	s.ulColors = append(s.ulColors, c)
	s.ulIDs[c] = id
	return id
}

// CellText returns the text of a cell: "" for a continuation cell, " " for
// a blank and the whole grapheme cluster for combined characters. A
// cluster cell is only meaningful until the next Write, which may
// renumber the clusters (see compactClusters).
func (s *Screen) CellText(c Cell) string {
	switch {
	case c.Attr&AttrWideCont != 0:
		return ""
	case c.R == 0:
		return " "
	case c.R >= clusterBase:
		return s.clusters[c.R-clusterBase]
	}
	return string(c.R)
}

func (s *Screen) emit(e Event) {
	if s.opts.OnEvent != nil {
		s.opts.OnEvent(e)
	}
}

func (s *Screen) reply(b []byte) {
	if s.opts.Reply != nil {
		s.opts.Reply(b)
	}
}

// Write feeds output of the child program. It never blocks and never fails;
// sequences split across calls are resumed.
func (s *Screen) Write(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		if s.inOSC {
			i += s.oscBytes(p[i:])
			continue
		}
		if st := s.p.state; st != stGround {
			if b := p[i]; isC0(b) && st.executesC0() {
				// C0 controls inside CSI/ESC sequences execute without
				// disturbing the sequence; the parser would clobber
				// the collected command with them.
				s.execute(b)
				i++
				continue
			}
			s.p.advance(p[i])
			i++
			switch st := s.p.state; {
			case st == stOsc:
				// OSC strings are collected here rather than by the
				// parser, which would end them at a 0x9c byte inside
				// UTF-8 text.
				s.p.reset()
				s.inOSC = true
				s.osc = s.osc[:0]
				s.forgetLast()
			case st.inString():
				// Like any control sequence, these strings stand
				// between REP and the character it would repeat.
				s.forgetLast()
			}
			continue
		}
		if s.utf8n > 0 {
			i += s.finishUTF8(p[i:])
			continue
		}
		b := p[i]
		switch {
		case b >= 0x20 && b < 0x7f:
			i = s.printASCIIRun(p, i)
		case b == 0x1b:
			if n := s.fastCSI(p[i:]); n > 0 {
				i += n
				continue
			}
			s.p.advance(b)
			i++
		case b < 0x20:
			s.execute(b)
			i++
		case b == 0x7f:
			i++
		default:
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				if !utf8.FullRune(p[i:]) {
					// Keep the partial rune for the next Write.
					s.utf8n = copy(s.utf8[:], p[i:])
					i = len(p)
					continue
				}
				r = utf8.RuneError
			}
			s.printRune(r)
			i += size
		}
	}
	return len(p), nil
}

// finishUTF8 completes a rune split across Write calls.
func (s *Screen) finishUTF8(p []byte) int {
	used := 0
	for used < len(p) && s.utf8n < utf8.UTFMax {
		var buf [utf8.UTFMax]byte
		copy(buf[:], s.utf8[:s.utf8n])
		buf[s.utf8n] = p[used]
		if utf8.FullRune(buf[:s.utf8n+1]) {
			r, size := utf8.DecodeRune(buf[:s.utf8n+1])
			if size <= s.utf8n {
				// Invalid: the held bytes make a replacement char; the
				// new byte is processed normally.
				s.utf8n = 0
				s.printRune(utf8.RuneError)
				return used
			}
			s.utf8n = 0
			s.printRune(r)
			return used + 1
		}
		s.utf8[s.utf8n] = p[used]
		s.utf8n++
		used++
	}
	return used
}

// oscBytes consumes OSC payload bytes and returns how many were used.
func (s *Screen) oscBytes(p []byte) int {
	for i, b := range p {
		switch b {
		case 0x07:
			s.inOSC = false
			s.oscEsc = false
			s.handleOSC(s.osc)
			return i + 1
		case 0x1b:
			s.inOSC = false
			s.oscEsc = true
			s.handleOSC(s.osc)
			// The ESC starts the ST (ESC \) which the parser swallows.
			s.p.advance(b)
			return i + 1
		case 0x18, 0x1a:
			s.inOSC = false
			return i + 1
		}
		if b >= 0x20 && len(s.osc) < maxOSC {
			s.osc = append(s.osc, b)
		}
	}
	return len(p)
}

// kittyFlags is the top of the active screen's kitty keyboard stack.
func (s *Screen) kittyFlags() int {
	st := s.kitty[s.altIndex()]
	if len(st) == 0 {
		return 0
	}
	return st[len(st)-1]
}

func (s *Screen) altIndex() int {
	if s.altActive {
		return 1
	}
	return 0
}

// fastCSI handles a complete, plain CSI sequence (digits and ';' only, no
// prefix or intermediates) found whole in p, which is what colourful
// output is made of, without going through the byte-at-a-time parser. It
// returns 0 when the sequence needs the general parser.
func (s *Screen) fastCSI(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	var arr [16]seqParam
	n := 0
	cur, have := 0, false
	for i := 2; i < len(p); i++ {
		b := p[i]
		switch {
		case b >= '0' && b <= '9':
			if cur < maxCount {
				cur = cur*10 + int(b-'0')
			}
			have = true
		case b == ';':
			if n == len(arr)-1 {
				return 0
			}
			arr[n] = missingOr(cur, have)
			n++
			cur, have = 0, false
		case b >= 0x40 && b <= 0x7e:
			if have || n > 0 {
				arr[n] = missingOr(cur, have)
				n++
			}
			if b == 'm' {
				// SGR, most of what colourful output sends,
				// skips handleCSI's dispatch.
				s.forgetLast()
				s.sgr(arr[:n])
				return i + 1
			}
			s.handleCSI(seqCmd(b), arr[:n])
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

func missingOr(v int, have bool) seqParam {
	if !have {
		return paramMissing
	}
	return seqParam(v)
}
