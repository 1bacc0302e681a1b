package web

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/term"
)

// A row goes to the page as a JSON array of runs, each
// ["text", fg, bg, attr]: the page's script makes one span per run and
// sets its textContent, so session text is never parsed as markup.
//
// fg and bg are -1 for the default colour, 0-255 for a palette entry and
// 1<<24|0xRRGGBB for a truecolour one. attr is term.Attr's rendition bits
// (bold 1, dim 2, italic 4, blink 8, reverse 16, hidden 32, strike 64,
// overline 128, the underline style in bits 12-14), plus attrWide for a
// double-width character (a run of its own, which the page sizes to two
// cells) and attrCursor for the cell under a visible cursor. A run that
// is an OSC 8 hyperlink has a fifth element, its URI, only for http,
// https and mailto (the page checks again).
const (
	attrWide   = int(term.AttrWide)
	attrCursor = 1 << 16
	styleBits  = int(term.AttrBold | term.AttrDim | term.AttrItalic | term.AttrBlink | term.AttrReverse |
		term.AttrHidden | term.AttrStrike | term.AttrOverline | term.Attr(7)<<12)
)

func colorCode(c term.Color) int {
	switch c.Kind() {
	case term.ColorKindBasic, term.ColorKindIndexed:
		return int(c.Index())
	case term.ColorKindRGB:
		r, g, b := c.RGB()
		return 1<<24 | int(r)<<16 | int(g)<<8 | int(b)
	}
	return -1
}

type runStyle struct {
	fg, bg, attr int
	link         string
}

func styleOf(scr *term.Screen, c term.Cell) runStyle {
	st := runStyle{fg: colorCode(c.Fg), bg: colorCode(c.Bg), attr: int(c.Attr) & styleBits}
	if _, uri := scr.Link(c); uri != "" && webLink(uri) {
		st.link = uri
	}
	if c.Attr&term.AttrWide != 0 {
		st.attr |= attrWide
	}
	return st
}

// rowEncoder turns cells into the JSON of one row.
type rowEncoder struct {
	b    []byte
	text []byte
}

// encode renders cols cells got from cell, with the cursor on column
// cur (-1: not on this row). Trailing default blanks are left out.
func (e *rowEncoder) encode(cols, cur int, cell func(x int) term.Cell, scr *term.Screen) []byte {
	end := cols
	for end > 0 && end-1 != cur {
		c := cell(end - 1)
		if (c.R != 0 && c.R != ' ') || c.Bg != term.ColorDefault || int(c.Attr)&styleBits&^int(term.AttrBold|term.AttrDim|term.AttrItalic|term.AttrBlink) != 0 {
			break
		}
		end--
	}
	e.b = append(e.b[:0], '[')
	e.text = e.text[:0]
	var st runStyle
	open := false
	flush := func() {
		if !open {
			return
		}
		if len(e.b) > 1 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, '[')
		e.b = appendJSONString(e.b, e.text)
		e.b = append(e.b, ',')
		e.b = strconv.AppendInt(e.b, int64(st.fg), 10)
		e.b = append(e.b, ',')
		e.b = strconv.AppendInt(e.b, int64(st.bg), 10)
		e.b = append(e.b, ',')
		e.b = strconv.AppendInt(e.b, int64(st.attr), 10)
		if st.link != "" {
			e.b = append(e.b, ',')
			e.b = appendJSONString(e.b, []byte(st.link))
		}
		e.b = append(e.b, ']')
		e.text = e.text[:0]
		open = false
	}
	for x := 0; x < end; x++ {
		c := cell(x)
		if c.Attr&term.AttrWideCont != 0 {
			continue
		}
		s := styleOf(scr, c)
		if x == cur {
			s.attr |= attrCursor
		}
		// A wide character, and the cursor's cell, are runs of their own.
		if !open || s != st || s.attr&(attrWide|attrCursor) != 0 || st.attr&(attrWide|attrCursor) != 0 {
			flush()
			st, open = s, true
		}
		e.text = append(e.text, scr.CellText(c)...)
	}
	flush()
	e.b = append(e.b, ']')
	return append([]byte(nil), e.b...)
}

// encodeScreenRow renders row y of scr.
func (e *rowEncoder) encodeScreenRow(scr *term.Screen, y, cols, cur int) []byte {
	return e.encode(cols, cur, func(x int) term.Cell { return scr.Cell(y, x) }, scr)
}

// webLink reports whether a hyperlink's URI is one the page may open:
// http, https or mailto, never javascript: or data:.
func webLink(uri string) bool {
	scheme, _, ok := strings.Cut(uri, ":")
	if !ok {
		return false
	}
	scheme = strings.ToLower(scheme)
	return scheme == "http" || scheme == "https" || scheme == "mailto"
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD; controls, the line separators JavaScript once rejected, and
// <, > and & are escaped, so the text is inert wherever it lands.
func appendJSONString(b []byte, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&15])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
