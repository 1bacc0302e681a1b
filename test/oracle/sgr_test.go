package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// colorKind says how a colour was chosen. SGR 31 and SGR 38;5;1 both pick
// palette entry 1, so both parse to {palette, 1}: they render the same on
// every terminal, and tmux and pty are free to re-encode one as the other.
type colorKind uint8

const (
	colorDefault colorKind = iota
	colorPalette
	colorRGB
)

type color struct {
	kind colorKind
	v    uint32 // palette index, or 0xRRGGBB
}

func (c color) String() string {
	switch c.kind {
	case colorPalette:
		return fmt.Sprintf("p%d", c.v)
	case colorRGB:
		return fmt.Sprintf("#%06x", c.v)
	}
	return "default"
}

// style is everything SGR can set on a cell that a capture can show.
type style struct {
	fg, bg, ul color
	bold       bool
	dim        bool
	italic     bool
	underline  uint8 // 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
	blink      bool
	reverse    bool
	hidden     bool
	strike     bool
	overline   bool
}

func (s style) String() string {
	var b []string
	if s.fg.kind != colorDefault {
		b = append(b, "fg="+s.fg.String())
	}
	if s.bg.kind != colorDefault {
		b = append(b, "bg="+s.bg.String())
	}
	if s.ul.kind != colorDefault {
		b = append(b, "ul="+s.ul.String())
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{s.bold, "bold"}, {s.dim, "dim"}, {s.italic, "italic"}, {s.underline != 0, fmt.Sprintf("underline%d", s.underline)},
		{s.blink, "blink"}, {s.reverse, "reverse"}, {s.hidden, "hidden"}, {s.strike, "strike"}, {s.overline, "overline"}} {
		if f.on {
			b = append(b, f.name)
		}
	}
	if len(b) == 0 {
		return "plain"
	}
	return strings.Join(b, ",")
}

// visiblyBlank reports whether a space drawn in s looks like a space drawn
// with no style at all: nothing but the background, reverse video and the
// line attributes show on a blank cell.
func (s style) visiblyBlank() bool {
	return s.bg.kind == colorDefault && !s.reverse && s.underline == 0 && !s.strike && !s.overline
}

// glyph is one printed rune and the style in effect when it was printed.
// Combining marks are separate glyphs carrying their base's style; since
// the plain texts are compared first, both sides split the same way.
type glyph struct {
	r   rune
	s   style
	dec bool // drawn from the DEC line-drawing set, see parseANSI
}

// decGraphics is the VT100 special graphics set for 0x5f..0x7e.
var decGraphics = []rune(" ◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·")

// parseANSI splits a capture into lines of glyphs. SGR state carries over
// line ends because tmux emits only the changes from the previous cell,
// across lines too. Escape sequences other than SGR are skipped, as are
// control characters, except SO and SI: tmux keeps line-drawing cells as
// the ASCII letters the program sent and marks them in capture-pane -e
// with SO ... SI, where pty stores the drawing characters themselves, so
// SO-marked letters are translated here.
func parseANSI(text string) ([][]glyph, error) {
	var (
		lines [][]glyph
		cur   []glyph
		st    style
		shift bool
	)
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n':
			lines = append(lines, cur)
			cur = nil
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unterminated CSI at rune %d", i)
			}
			if rs[j] == 'm' {
				if err := st.apply(string(rs[i+2 : j])); err != nil {
					return nil, err
				}
			}
			i = j
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == ']':
			// OSC (hyperlinks, titles): skipped up to BEL or ST.
			j := i + 2
			for j < len(rs) && rs[j] != 0x07 && !(rs[j] == 0x1b && j+1 < len(rs) && rs[j+1] == '\\') {
				j++
			}
			if j < len(rs) && rs[j] == 0x1b {
				j++
			}
			i = j
		case r == 0x1b:
			i++ // two-byte escape
		case r == 0x0e:
			shift = true
		case r == 0x0f:
			shift = false
		case r < 0x20 || r == 0x7f:
		case shift && r >= 0x5f && r <= 0x7e:
			cur = append(cur, glyph{decGraphics[r-0x5f], st, true})
		default:
			cur = append(cur, glyph{r: r, s: st})
		}
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines, nil
}

// apply interprets the parameters of one SGR sequence, in both the
// semicolon and the colon (ITU T.416) forms.
func (s *style) apply(params string) error {
	if strings.ContainsAny(params, "<=>?") {
		return nil // private sequences such as XTMODKEYS' CSI > 4 ; 1 m
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		sub := strings.Split(ps[i], ":")
		n := 0
		if sub[0] != "" {
			v, err := strconv.Atoi(sub[0])
			if err != nil {
				return fmt.Errorf("SGR %q: bad parameter %q", params, ps[i])
			}
			n = v
		}
		switch {
		case n == 0:
			*s = style{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.dim = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.underline = 1
			if len(sub) > 1 {
				v, _ := strconv.Atoi(sub[1])
				s.underline = uint8(v)
			}
		case n == 5 && len(sub) == 2 && sub[1] == "3":
			// tmux 3.3 prints overline (53) as "5:3" in capture-pane -e:
			// it splits every two-digit attribute code with a colon, as
			// it must for the underline styles 4:2 to 4:5.
			s.overline = true
		case n == 5 || n == 6:
			s.blink = true
		case n == 7:
			s.reverse = true
		case n == 8:
			s.hidden = true
		case n == 9:
			s.strike = true
		case n == 21:
			s.underline = 2
		case n == 22:
			s.bold, s.dim = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.underline = 0
		case n == 25:
			s.blink = false
		case n == 27:
			s.reverse = false
		case n == 28:
			s.hidden = false
		case n == 29:
			s.strike = false
		case n >= 30 && n <= 37:
			s.fg = color{colorPalette, uint32(n - 30)}
		case n == 39:
			s.fg = color{}
		case n >= 40 && n <= 47:
			s.bg = color{colorPalette, uint32(n - 40)}
		case n == 49:
			s.bg = color{}
		case n == 53:
			s.overline = true
		case n == 55:
			s.overline = false
		case n == 59:
			s.ul = color{}
		case n >= 90 && n <= 97:
			s.fg = color{colorPalette, uint32(n - 90 + 8)}
		case n >= 100 && n <= 107:
			s.bg = color{colorPalette, uint32(n - 100 + 8)}
		case n == 38 || n == 48 || n == 58:
			var c color
			var err error
			if len(sub) > 1 {
				c, err = extColor(sub[1:], true)
			} else {
				var used int
				c, used, err = extColorSemi(ps[i+1:])
				i += used
			}
			if err != nil {
				return fmt.Errorf("SGR %q: %v", params, err)
			}
			switch n {
			case 38:
				s.fg = c
			case 48:
				s.bg = c
			default:
				s.ul = c
			}
		default:
			return fmt.Errorf("SGR %q: unknown parameter %d", params, n)
		}
	}
	return nil
}

// extColorSemi reads "5;N" or "2;R;G;B" after a 38/48/58 and reports how
// many parameters it consumed.
func extColorSemi(ps []string) (color, int, error) {
	if len(ps) == 0 {
		return color{}, 0, fmt.Errorf("colour without a kind")
	}
	switch ps[0] {
	case "5":
		if len(ps) < 2 {
			return color{}, 0, fmt.Errorf("256-colour without an index")
		}
		c, err := extColor(ps[:2], false)
		return c, 2, err
	case "2":
		if len(ps) < 4 {
			return color{}, 0, fmt.Errorf("truecolour with %d components", len(ps)-1)
		}
		c, err := extColor(ps[:4], false)
		return c, 4, err
	}
	return color{}, 0, fmt.Errorf("unknown colour kind %q", ps[0])
}

// extColor decodes "5,N" or "2,[colourspace,]R,G,B".
func extColor(p []string, colon bool) (color, error) {
	num := func(s string) (uint32, error) {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > 255 {
			return 0, fmt.Errorf("bad colour component %q", s)
		}
		return uint32(v), nil
	}
	switch p[0] {
	case "5":
		if len(p) != 2 {
			return color{}, fmt.Errorf("256-colour %v", p)
		}
		v, err := num(p[1])
		return color{colorPalette, v}, err
	case "2":
		rgb := p[1:]
		if colon && len(rgb) == 4 {
			rgb = rgb[1:] // colour space id
		}
		if len(rgb) != 3 {
			return color{}, fmt.Errorf("truecolour %v", p)
		}
		var v uint32
		for _, c := range rgb {
			n, err := num(c)
			if err != nil {
				return color{}, err
			}
			v = v<<8 | n
		}
		return color{colorRGB, v}, nil
	}
	return color{}, fmt.Errorf("unknown colour kind %q", p[0])
}

func glyphText(gs []glyph) string {
	var b strings.Builder
	for _, g := range gs {
		b.WriteRune(g.r)
	}
	return b.String()
}

// styleDiffs compares two parsed captures glyph by glyph. Where one line
// is longer, its extra glyphs must be spaces that look blank: tmux stops a
// line where its last written cell is (even with -N it does not print
// cells only erased with a background colour), and pty may stop at its
// last non-blank cell, so extra blank cells on either side carry no
// information, but a coloured background there would be lost colour.
// The comparison of the extra cells is one-sided: cells pty prints beyond
// tmux's extent cannot be checked against tmux at all.
func styleDiffs(pty, tmux [][]glyph, rows int) []string {
	var diffs []string
	add := func(f string, a ...any) {
		if len(diffs) < 12 {
			diffs = append(diffs, fmt.Sprintf(f, a...))
		}
	}
	for y := 0; y < rows; y++ {
		var p, m []glyph
		if y < len(pty) {
			p = pty[y]
		}
		if y < len(tmux) {
			m = tmux[y]
		}
		for x := 0; x < max(len(p), len(m)); x++ {
			switch {
			case x < len(p) && x < len(m):
				if p[x].r != m[x].r {
					add("line %d glyph %d: pty %q, tmux %q (text differs)", y, x, p[x].r, m[x].r)
				} else if p[x].s != m[x].s {
					add("line %d glyph %d %q: pty %v, tmux %v", y, x, p[x].r, p[x].s, m[x].s)
				}
			case x < len(m):
				if !unicode.IsSpace(m[x].r) || !m[x].s.visiblyBlank() {
					add("line %d glyph %d %q: tmux shows %v, pty's line ended", y, x, m[x].r, m[x].s)
				}
			default:
				if !unicode.IsSpace(p[x].r) {
					add("line %d glyph %d %q: pty shows it, tmux's line ended", y, x, p[x].r)
				}
			}
		}
	}
	return diffs
}

func TestParseANSI(t *testing.T) {
	lines, err := parseANSI("\x1b[31ma\x1b[38;5;1mb\x1b[38:5:1mc\x1b[0;1;4:3;48;2;1;2;3md\n\x1b[38:2::10:20:30me\x1b[22;24;49;39mf\x1b]8;;x\x1b\\g\x1b[7m\x1b[>4;1mh\x1b[5:3mi\n\x1b[m\x0elq\x0fx")
	if err != nil {
		t.Fatal(err)
	}
	red := style{fg: color{colorPalette, 1}}
	want := [][]glyph{
		{{'a', red, false}, {'b', red, false}, {'c', red, false}, {'d', style{bold: true, underline: 3, bg: color{colorRGB, 0x010203}}, false}},
		{{'e', style{fg: color{colorRGB, 0x0a141e}, underline: 3, bold: true, bg: color{colorRGB, 0x010203}}, false}, {'f', style{}, false}, {'g', style{}, false},
			{'h', style{reverse: true}, false}, {'i', style{reverse: true, overline: true}, false}},
		{{'┌', style{}, true}, {'─', style{}, true}, {'x', style{}, false}},
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("got  %v\nwant %v", lines, want)
	}
	for _, bad := range []string{"\x1b[38;5m", "\x1b[38;2;1;2m", "\x1b[38;7;1m", "\x1b[3.5m", "\x1b[31"} {
		if _, err := parseANSI(bad); err == nil {
			t.Errorf("parseANSI(%q) accepted", bad)
		}
	}
}

func TestStyleDiffs(t *testing.T) {
	p, _ := parseANSI("ab\x1b[41m \n")
	m, _ := parseANSI("\x1b[31;39mab  \n")
	if d := styleDiffs(p, m, 2); len(d) != 1 || !strings.Contains(d[0], "bg=p1") {
		t.Fatalf("diffs = %q, want one about the red background", d)
	}
	m, _ = parseANSI("ab\x1b[41m \x1b[49m \n")
	if d := styleDiffs(p, m, 2); len(d) != 0 {
		t.Fatalf("diffs = %q, want none", d)
	}
}
