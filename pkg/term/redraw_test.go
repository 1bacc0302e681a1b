package term

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// redrawInto replays a.Redraw() into a fresh screen of the same size, the
// way the daemon paints a newly attached client.
func redrawInto(a *Screen) *Screen {
	rows, cols := a.Size()
	b := New(rows, cols, Options{})
	b.Write([]byte("\x1b[2J\x1b[H"))
	b.Write(a.Redraw())
	return b
}

var redrawCases = map[string]string{
	"empty":    "",
	"plain":    "hello\r\nworld",
	"colours":  "\x1b[31mred\x1b[42mgreen bg\x1b[0m \x1b[38;5;100mx\x1b[48;2;1;2;3my\x1b[1;3;4:3;7;9mz\x1b[0m",
	"bg erase": "\x1b[44m\x1b[2;1H\x1b[K\x1b[3;5H\x1b[3X\x1b[0mafter",
	"wide":     "中文 😀 e\u0301 x\x1b[2;1Ha\u0308\u0323中",
	"full screen": func() string {
		var b strings.Builder
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&b, "\x1b[3%dm%s", i%8, strings.Repeat(string(rune('a'+i)), 20))
		}
		return b.String()
	}(),
	"pending wrap":      "\x1b[5;1H" + strings.Repeat("w", 20),
	"pending wrap wide": "\x1b[5;1H" + strings.Repeat("w", 18) + "中",
	"bottom right":      "\x1b[10;1H" + strings.Repeat("z", 20),
	"modes": "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?1004h\x1b[?25l\x1b[5 q\x1b[>3u" +
		"\x1b]2;my title\x07\x1b[1;35mpen",
	"x10 mouse":           "\x1b[?9h",
	"allow 132 columns":   "\x1b[?40h",
	"protected":           "\x1b[1\"qAB\x1b[0\"qcd\x1b[1\"q\x1b[31m中\x1b[2;1H\x1b[0\"qx\x1b[1\"q\x1b7\x1b[0\"q\x1b[3;1H\x1b[1\"q",
	"protected wrap":      "\x1b[1\"q\x1b[5;1H" + strings.Repeat("p", 20),
	"sync":                "\x1b[?2026habc",
	"scroll region":       "\x1b[3;8r\x1b[5;5Hx",
	"origin":              "\x1b[3;8r\x1b[?6h\x1b[2;4Hx",
	"autowrap off":        "\x1b[?7labc\x1b[4h",
	"tabs":                "\x1b[3g\x1b[5G\x1bH\x1b[12G\x1bH\x1b[H",
	"saved cursor":        "\x1b[4;6H\x1b[1;32m\x1b7\x1b[0m\x1b[H",
	"charset":             "\x1b(0lqk\x1b)0\x0e",
	"alt":                 "main text\x1b[?1049h\x1b[2;2H\x1b[33malt text\x1b[0m\x1b[?1000h",
	"alt saved pen":       "\x1b[5;5H\x1b[1;31mmain\x1b(0\x1b[?1049h\x1b[0malt\x1b(B",
	"alt kitty":           "\x1b[>1u\x1b[?1049h\x1b[>5uq",
	"after scroll":        strings.Repeat("line\r\n", 30) + "\x1b[41mend",
	"dec graphics on alt": "\x1b[?1049h\x1b(0x\x1b(B",
	"underline colour":    "\x1b[4;58;5;196mul\x1b[58:2::1:2:3mrgb\x1b[59mdef\x1b[24;58;5;7m\x1b7\x1b[2;1H\x1b[4:3m",
}

func TestRedrawRoundTrip(t *testing.T) {
	for name, in := range redrawCases {
		t.Run(name, func(t *testing.T) {
			a := newScreen(10, 20, in)
			b := redrawInto(a)
			assertSameScreen(t, a, b)
			if a.wrapNext != b.wrapNext {
				t.Errorf("pending wrap %v vs %v", a.wrapNext, b.wrapNext)
			}
			if sa, sb := a.saved[a.altIndex()], b.saved[b.altIndex()]; !sameCellAcross(a, sa.pen, b, sb.pen) || func() bool {
				sa.pen, sb.pen = Cell{}, Cell{}
				return sa != sb
			}() {
				t.Errorf("saved cursor %+v vs %+v", a.saved[a.altIndex()], b.saved[b.altIndex()])
			}
			if a.charsets != b.charsets || a.gl != b.gl {
				t.Errorf("charsets %v/%d vs %v/%d", a.charsets, a.gl, b.charsets, b.gl)
			}
			for i := range a.tabs {
				if a.tabs[i] != b.tabs[i] {
					t.Errorf("tab stop %d differs", i)
				}
			}
			// A terminal left in other modes by a previous session
			// ends up in A's modes too.
			rows, cols := a.Size()
			dirty := New(rows, cols, Options{})
			dirty.Write([]byte("\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1h\x1b=\x1b[5 q\x1b[?1004h\x1b[?9h\x1b[2J\x1b[H"))
			dirty.Write(a.Redraw())
			if a.Modes() != dirty.Modes() {
				t.Errorf("modes after redraw on a dirty terminal\n%+v\n%+v", a.Modes(), dirty.Modes())
			}
			// The output must continue identically too.
			more := "\x1b[0mZZ\r\nnext line\x1b[2;3HQ"
			a.Write([]byte(more))
			b.Write([]byte(more))
			assertSameScreen(t, a, b)
			// Including after leaving the alternate screen.
			if a.Modes().AltScreen {
				a.Write([]byte("\x1b[?1049lafter"))
				b.Write([]byte("\x1b[?1049lafter"))
				assertSameScreen(t, a, b)
			}
		})
	}
}

// TestRedrawNeverScrolls replays Redraw into a screen and checks nothing
// reached its scrollback, i.e. the outer terminal would not have scrolled.
func TestRedrawNeverScrolls(t *testing.T) {
	for name, in := range redrawCases {
		a := newScreen(10, 20, in)
		out := a.Redraw()
		if bytes.Contains(out, []byte("\n")) {
			t.Errorf("%s: Redraw contains a line feed", name)
		}
		b := redrawInto(a)
		if n := b.ScrollbackLen(); n != 0 {
			t.Errorf("%s: Redraw scrolled %d lines", name, n)
		}
	}
}
