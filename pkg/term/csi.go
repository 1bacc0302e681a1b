package term

import "strconv"

// maxCount bounds repeat-style parameters so hostile input cannot make a
// single sequence do unbounded work.
const maxCount = 1 << 16

// param returns parameter i clamped to [0, maxCount], or def when missing.
func param(ps seqParams, i, def int) int {
	if i >= len(ps) {
		return def
	}
	v := ps[i].Param(-1)
	if v < 0 {
		return def
	}
	return min(v, maxCount)
}

// count is param with xterm's "0 or missing means 1".
func count(ps seqParams, i int) int {
	v := param(ps, i, 1)
	if v == 0 {
		return 1
	}
	return v
}

func (s *Screen) handleCSI(cmd seqCmd, ps seqParams) {
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	if final != 'b' || prefix != 0 || inter != 0 {
		s.forgetLast()
	}
	if prefix != 0 || inter != 0 {
		s.handleCSIExt(prefix, inter, final, ps)
		return
	}
	switch final {
	case '@':
		s.insertCells(s.g.row(s.y), s.x, count(ps, 0))
		s.wrapNext = false
	case 'A':
		s.cursorUp(count(ps, 0))
	case 'B', 'e':
		s.cursorDown(count(ps, 0))
	case 'C', 'a':
		s.x = min(s.x+count(ps, 0), s.cols-1)
		s.wrapNext = false
	case 'D':
		s.x = max(s.x-count(ps, 0), 0)
		s.wrapNext = false
	case 'E':
		s.cursorDown(count(ps, 0))
		s.x = 0
	case 'F':
		s.cursorUp(count(ps, 0))
		s.x = 0
	case 'G', '`':
		s.x = clamp(count(ps, 0)-1, 0, s.cols-1)
		s.wrapNext = false
	case 'H', 'f':
		s.moveTo(count(ps, 0)-1, count(ps, 1)-1)
	case 'I':
		s.tab(count(ps, 0))
	case 'J':
		s.eraseDisplay(param(ps, 0, 0))
	case 'K':
		s.eraseLine(param(ps, 0, 0))
	case 'L':
		s.insertLines(count(ps, 0))
	case 'M':
		s.deleteLines(count(ps, 0))
	case 'P':
		s.deleteCells(count(ps, 0))
	case 'S':
		s.scrollUp(s.top, s.bottom, count(ps, 0))
	case 'T':
		if len(ps) <= 1 {
			s.scrollDown(s.top, s.bottom, count(ps, 0))
		}
	case 'X':
		n := count(ps, 0)
		if s.x == 0 && n >= s.cols {
			s.clearRow(s.y)
		} else {
			s.eraseCells(s.y, s.x, s.x+n)
		}
		s.wrapNext = false
	case 'Z':
		s.backTab(count(ps, 0))
	case 'b':
		if r := s.lastRune; r != 0 {
			s.repeat(r, min(count(ps, 0), s.rows*s.cols))
		}
		// REP is a control sequence too: a second one straight after
		// repeats nothing.
		s.forgetLast()
	case 'c':
		if param(ps, 0, 0) == 0 {
			s.reply([]byte("\x1b[?62;22c"))
		}
	case 'd':
		y := count(ps, 0) - 1
		if s.modes.Origin {
			s.moveTo(y, s.x)
		} else {
			s.y = clamp(y, 0, s.rows-1)
			s.wrapNext = false
		}
	case 'g':
		switch param(ps, 0, 0) {
		case 0:
			s.tabs[s.x] = false
		case 3:
			clear(s.tabs)
		}
	case 'h', 'l':
		on := final == 'h'
		for i := range ps {
			switch param(ps, i, 0) {
			case 4:
				s.modes.Insert = on
			}
		}
	case 'm':
		s.sgr(ps)
	case 'n':
		switch param(ps, 0, 0) {
		case 5:
			s.reply([]byte("\x1b[0n"))
		case 6:
			y := s.y
			if s.modes.Origin {
				y -= s.top
			}
			s.reply([]byte("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(s.x+1) + "R"))
		}
	case 'r':
		top := count(ps, 0) - 1
		bottom := param(ps, 1, 0)
		if bottom == 0 || bottom > s.rows {
			bottom = s.rows
		}
		bottom--
		if top < bottom {
			s.top, s.bottom = top, bottom
			s.moveTo(0, 0)
		}
	case 's':
		s.saveCursor()
	case 'u':
		s.restoreCursor()
	case 't':
		switch param(ps, 0, 0) {
		case 14:
			s.reply([]byte("\x1b[4;" + strconv.Itoa(s.rows*16) + ";" + strconv.Itoa(s.cols*8) + "t"))
		case 16:
			s.reply([]byte("\x1b[6;16;8t"))
		case 18:
			s.reply([]byte("\x1b[8;" + strconv.Itoa(s.rows) + ";" + strconv.Itoa(s.cols) + "t"))
		case 22:
			// Push the title (vim saves it before changing it).
			if which := param(ps, 1, 0); which == 0 || which == 2 {
				if len(s.titles) >= maxTitleStack {
					s.titles = append(s.titles[:0], s.titles[1:]...)
				}
				s.titles = append(s.titles, s.title)
			}
		case 23:
			if which := param(ps, 1, 0); (which == 0 || which == 2) && len(s.titles) > 0 {
				t := s.titles[len(s.titles)-1]
				s.titles = s.titles[:len(s.titles)-1]
				s.setTitle(t)
			}
		}
	}
}

func (s *Screen) handleCSIExt(prefix, inter, final byte, ps seqParams) {
	switch {
	case prefix == '?' && inter == 0 && (final == 'h' || final == 'l'):
		on := final == 'h'
		for i := range ps {
			s.setPrivateMode(param(ps, i, 0), on)
		}
	case prefix == '?' && inter == 0 && final == 'J':
		s.selectiveEraseDisplay(param(ps, 0, 0))
	case prefix == '?' && inter == 0 && final == 'K':
		s.selectiveEraseLine(param(ps, 0, 0))
	case prefix == 0 && inter == '"' && final == 'q':
		// DECSCA
		switch param(ps, 0, 0) {
		case 1:
			s.pen.Attr |= AttrProtected
		case 0, 2:
			s.pen.Attr &^= AttrProtected
		}
	case prefix == '?' && inter == '$' && final == 'p':
		mode := param(ps, 0, 0)
		v := 0
		if set, known := s.privateMode(mode); known {
			v = 2
			if set {
				v = 1
			}
		}
		s.reply([]byte("\x1b[?" + strconv.Itoa(mode) + ";" + strconv.Itoa(v) + "$y"))
	case prefix == 0 && inter == '$' && final == 'p':
		mode := param(ps, 0, 0)
		v := 0
		switch mode {
		case 4:
			v = 2
			if s.modes.Insert {
				v = 1
			}
		case 20:
			v = 2
		}
		s.reply([]byte("\x1b[" + strconv.Itoa(mode) + ";" + strconv.Itoa(v) + "$y"))
	case prefix == '>' && final == 'c':
		s.reply([]byte("\x1b[>0;382;0c"))
	case prefix == '>' && final == 'q':
		v := s.opts.Version
		if v == "" {
			v = "dev"
		}
		s.reply([]byte("\x1bP>|pty(" + v + ")\x1b\\"))
	case prefix == 0 && inter == ' ' && final == 'q':
		if n := param(ps, 0, 0); n <= 6 {
			s.modes.CursorShape = n
		}
	case prefix == 0 && inter == '!' && final == 'p':
		s.softReset()
	case inter == 0 && final == 'u':
		s.kittyKeyboard(prefix, ps)
	}
}

const maxKittyStack = 16

// maxTitleStack bounds the XTWINOPS 22/23 title stack, as xterm does.
const maxTitleStack = 10

func (s *Screen) kittyKeyboard(prefix byte, ps seqParams) {
	st := &s.kitty[s.altIndex()]
	switch prefix {
	case '?':
		s.reply([]byte("\x1b[?" + strconv.Itoa(s.kittyFlags()) + "u"))
	case '>':
		if len(*st) >= maxKittyStack {
			*st = append((*st)[:0], (*st)[1:]...)
		}
		*st = append(*st, param(ps, 0, 0)&0x1f)
	case '<':
		n := count(ps, 0)
		*st = (*st)[:max(len(*st)-n, 0)]
	case '=':
		flags := param(ps, 0, 0) & 0x1f
		cur := s.kittyFlags()
		switch param(ps, 1, 1) {
		case 1:
			cur = flags
		case 2:
			cur |= flags
		case 3:
			cur &^= flags
		}
		if len(*st) == 0 {
			*st = append(*st, cur)
		} else {
			(*st)[len(*st)-1] = cur
		}
	}
}

// privateMode reports a DEC private mode's state for DECRQM.
func (s *Screen) privateMode(mode int) (set, known bool) {
	m := &s.modes
	switch mode {
	case 1:
		return m.AppCursor, true
	case 3:
		return s.col132, true
	case 6:
		return m.Origin, true
	case 7:
		return m.Autowrap, true
	case 9:
		return m.MouseX10, true
	case 25:
		return !m.CursorHidden, true
	case 40:
		return s.allowColumns, true
	case 47, 1047, 1049:
		return s.altActive, true
	case 66:
		return m.AppKeypad, true
	case 1000:
		return m.Mouse1000, true
	case 1002:
		return m.Mouse1002, true
	case 1003:
		return m.Mouse1003, true
	case 1004:
		return m.FocusEvents, true
	case 1006:
		return m.MouseSGR1006, true
	case 2004:
		return m.BracketedPaste, true
	case 2026:
		return m.SyncOutput, true
	}
	return false, false
}

func (s *Screen) setPrivateMode(mode int, on bool) {
	m := &s.modes
	switch mode {
	case 1:
		m.AppCursor = on
	case 3:
		if s.allowColumns {
			s.deccolm(on)
		}
	case 40:
		s.allowColumns = on
	case 6:
		m.Origin = on
		s.moveTo(0, 0)
	case 7:
		m.Autowrap = on
		if !on {
			s.wrapNext = false
		}
	case 9, 1000, 1002, 1003:
		// The tracking modes are exclusive: the last one enabled wins.
		if on {
			m.MouseX10, m.Mouse1000, m.Mouse1002, m.Mouse1003 = false, false, false, false
		}
		switch mode {
		case 9:
			m.MouseX10 = on
		case 1000:
			m.Mouse1000 = on
		case 1002:
			m.Mouse1002 = on
		case 1003:
			m.Mouse1003 = on
		}
	case 25:
		if m.CursorHidden == on {
			m.CursorHidden = !on
			s.emit(Event{Type: "cursor_visible", Value: strconv.FormatBool(on)})
		}
	case 47, 1047:
		s.setAlt(on, on, false)
	case 1049:
		s.setAlt(on, on, true)
	case 1048:
		if on {
			s.saveCursor()
		} else {
			s.restoreCursor()
		}
	case 66:
		m.AppKeypad = on
	case 1004:
		m.FocusEvents = on
	case 1006:
		m.MouseSGR1006 = on
	case 2004:
		m.BracketedPaste = on
	case 2026:
		m.SyncOutput = on
	}
}

// sgr applies Select Graphic Rendition parameters to the pen.
func (s *Screen) sgr(ps seqParams) {
	if len(ps) == 0 {
		s.pen = Cell{Attr: s.pen.Attr & AttrProtected, ul: s.keepLink(s.pen.ul)}
		return
	}
	pen := &s.pen
	for i := 0; i < len(ps); i++ {
		p := ps[i].Param(0)
		if ps[i].HasMore() && p != 4 && p != 38 && p != 48 && p != 58 {
			// Unknown sub-parameters (e.g. "5:3"): apply the main
			// parameter, skip the rest.
			for ps[i].HasMore() && i+1 < len(ps) {
				i++
			}
		}
		switch {
		case p == 0:
			// DECSCA's protection is not a rendition.
			pen.Fg, pen.Bg, pen.Attr, pen.ul = 0, 0, pen.Attr&AttrProtected, s.keepLink(pen.ul)
		case p == 1:
			pen.Attr |= AttrBold
		case p == 2:
			pen.Attr |= AttrDim
		case p == 3:
			pen.Attr |= AttrItalic
		case p == 4:
			u := UnderlineSingle
			if ps[i].HasMore() && i+1 < len(ps) {
				i++
				u = ps[i].Param(0)
				if u > UnderlineDashed {
					u = UnderlineSingle
				}
				// Skip any further sub-parameters.
				for ps[i].HasMore() && i+1 < len(ps) {
					i++
				}
			}
			pen.Attr = pen.Attr.withUnderline(u)
		case p == 5 || p == 6:
			pen.Attr |= AttrBlink
		case p == 7:
			pen.Attr |= AttrReverse
		case p == 8:
			pen.Attr |= AttrHidden
		case p == 9:
			pen.Attr |= AttrStrike
		case p == 21:
			pen.Attr = pen.Attr.withUnderline(UnderlineDouble)
		case p == 22:
			pen.Attr &^= AttrBold | AttrDim
		case p == 23:
			pen.Attr &^= AttrItalic
		case p == 24:
			pen.Attr = pen.Attr.withUnderline(UnderlineNone)
		case p == 25:
			pen.Attr &^= AttrBlink
		case p == 27:
			pen.Attr &^= AttrReverse
		case p == 28:
			pen.Attr &^= AttrHidden
		case p == 29:
			pen.Attr &^= AttrStrike
		case p >= 30 && p <= 37:
			pen.Fg = BasicColor(uint8(p - 30))
		case p == 38, p == 48, p == 58:
			c, next, ok := extColor(ps, i)
			i = next
			if ok {
				switch p {
				case 38:
					pen.Fg = c
				case 48:
					pen.Bg = c
				case 58:
					pen.ul = s.extIndex(c, s.linkOf(pen.ul))
				}
			}
		case p == 39:
			pen.Fg = 0
		case p >= 40 && p <= 47:
			pen.Bg = BasicColor(uint8(p - 40))
		case p == 49:
			pen.Bg = 0
		case p == 59:
			pen.ul = s.keepLink(pen.ul)
		case p == 53:
			pen.Attr |= AttrOverline
		case p == 55:
			pen.Attr &^= AttrOverline
		case p >= 90 && p <= 97:
			pen.Fg = BasicColor(uint8(p - 90 + 8))
		case p >= 100 && p <= 107:
			pen.Bg = BasicColor(uint8(p - 100 + 8))
		}
	}
}

// extColor parses the colour after SGR 38/48/58 at index i in either the
// colon (38:2::r:g:b, 38:5:n) or semicolon (38;2;r;g;b, 38;5;n) form. It
// returns the index of the last parameter consumed.
func extColor(ps seqParams, i int) (Color, int, bool) {
	if ps[i].HasMore() {
		// Colon form: gather the sub-parameters.
		var sub [6]int
		n := 0
		j := i
		for ps[j].HasMore() && j+1 < len(ps) {
			j++
			if n < len(sub) {
				sub[n] = ps[j].Param(-1)
				n++
			}
		}
		if n == 0 {
			return 0, j, false
		}
		switch sub[0] {
		case 5:
			if n >= 2 && sub[1] >= 0 && sub[1] <= 255 {
				return IndexedColor(uint8(sub[1])), j, true
			}
		case 2:
			var r, g, b int
			switch {
			case n >= 5:
				r, g, b = sub[2], sub[3], sub[4]
			case n == 4:
				r, g, b = sub[1], sub[2], sub[3]
			default:
				return 0, j, false
			}
			return RGBColor(uint8(clamp(r, 0, 255)), uint8(clamp(g, 0, 255)), uint8(clamp(b, 0, 255))), j, true
		}
		return 0, j, false
	}
	if i+1 >= len(ps) {
		return 0, i, false
	}
	switch ps[i+1].Param(0) {
	case 5:
		if i+2 >= len(ps) {
			return 0, len(ps) - 1, false
		}
		v := ps[i+2].Param(0)
		if v > 255 {
			return 0, i + 2, false
		}
		return IndexedColor(uint8(v)), i + 2, true
	case 2:
		if i+4 >= len(ps) {
			return 0, len(ps) - 1, false
		}
		r, g, b := ps[i+2].Param(0), ps[i+3].Param(0), ps[i+4].Param(0)
		return RGBColor(uint8(clamp(r, 0, 255)), uint8(clamp(g, 0, 255)), uint8(clamp(b, 0, 255))), i + 4, true
	}
	return 0, i + 1, false
}

// forgetLast makes a following REP a no-op: REP repeats the character
// immediately before it (ECMA-48, tmux), not one printed before a control.
func (s *Screen) forgetLast() { s.lastRune = 0 }

func (s *Screen) handleESC(cmd seqCmd) {
	s.forgetLast()
	inter, final := cmd.Intermediate(), cmd.Final()
	switch inter {
	case 0:
		switch final {
		case '7':
			s.saveCursor()
		case '8':
			s.restoreCursor()
		case '=':
			s.modes.AppKeypad = true
		case '>':
			s.modes.AppKeypad = false
		case 'D':
			s.index()
		case 'E':
			s.x = 0
			s.wrapNext = false
			s.index()
		case 'H':
			s.tabs[s.x] = true
		case 'M':
			s.reverseIndex()
		case 'c':
			s.fullReset()
		}
	case '(', ')':
		cs := charsetASCII
		if final == '0' {
			cs = charsetDEC
		}
		s.charsets[inter-'('] = cs
	case '#':
		if final == '8' {
			s.decaln()
		}
	}
}

func (s *Screen) handleDCS(cmd seqCmd, ps seqParams, data []byte) {
	switch {
	case cmd.Intermediate() == '$' && cmd.Final() == 'q':
		// DECRQSS
		var v string
		switch string(data) {
		case "m":
			v = string(s.appendSGRParams(nil, s.pen)) + "m"
		case " q":
			v = strconv.Itoa(s.modes.CursorShape) + " q"
		case "\"q":
			v = "0\"q"
			if s.pen.Attr&AttrProtected != 0 {
				v = "1\"q"
			}
		case "r":
			v = strconv.Itoa(s.top+1) + ";" + strconv.Itoa(s.bottom+1) + "r"
		default:
			s.reply([]byte("\x1bP0$r\x1b\\"))
			return
		}
		s.reply([]byte("\x1bP1$r" + v + "\x1b\\"))
	case cmd.Intermediate() == '+' && cmd.Final() == 'q':
		// XTGETTCAP: we advertise nothing.
		s.reply([]byte("\x1bP0+r\x1b\\"))
	}
}
