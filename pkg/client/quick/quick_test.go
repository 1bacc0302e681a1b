package quick

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestTextOnly(t *testing.T) {
	for _, c := range []struct{ in, sgr, plain string }{
		{"plain\n", "plain\n", "plain\n"},
		{"bash$ \x1b[?2004h", "bash$ ", "bash$ "},
		{"\x1b[31;1mRED\x1b[0m x\r\n", "\x1b[31;1mRED\x1b[0m x\n", "RED x\n"},
		{"a\x1b[3Cb", "a   b", "a   b"},
		{"a\x1b[Cb\x1b[99999Cc", "a b" + strings.Repeat(" ", maxCUF) + "c", "a b" + strings.Repeat(" ", maxCUF) + "c"},
		{"\x1b]0;title\x07t\x1b]8;;http://x\x1b\\u\x1bPq#0\x1b\\v", "t\x1b]8;;http://x\x1b\\uv", "tuv"},
		{"\x1b]8;id=1;http://x\x07u\x1b]8;;\x07", "\x1b]8;id=1;http://x\x07u\x1b]8;;\x07", "u"},
		{"\x1b]8;;http://\x01x\x07u\x1b]8\x07v\x1b]8;http://y\x07w", "uvw", "uvw"},
		{"\x1b(B\x1b)0\x1b=\x1b7x\x1b8\x0e\x0f\x07\x7f", "x", "x"},
		{"\x1b[?25l\x1b[2J\x1b[H\x1b[5;10Hy\x1b[>4;1m\x1b[38:2:1:2:3mz", "y\x1b[38:2:1:2:3mz", "yz"},
		{"c1\u009b31m.\u0090x", "c131m.x", "c131m.x"},
		{"cut\x1b[31", "cut", "cut"},
		{"cut\x1b]0;never ends", "cut", "cut"},
		{"tab\there", "tab\there", "tab\there"},
		{"héllo 世界\n", "héllo 世界\n", "héllo 世界\n"},
	} {
		if got := TextOnly(c.in, true); got != c.sgr {
			t.Errorf("TextOnly(%q, sgr) = %q, want %q", c.in, got, c.sgr)
		}
		if got := TextOnly(c.in, false); got != c.plain {
			t.Errorf("TextOnly(%q, plain) = %q, want %q", c.in, got, c.plain)
		}
	}
}

var onlySGR = regexp.MustCompile(`\x1b\[[0-9;:]*m|\x1b\]8;[ -~]*;[ -~]*(\x07|\x1b\\)`)

func FuzzTextOnly(f *testing.F) {
	f.Add("bash$ \x1b[?2004h\x1b[31mx\x1b[0m\r\n\x1b]0;t\x07")
	f.Add("plain text\n\n")
	f.Add("a C1 control \xc2\x85 and \xc2\xc2\x9f, an A0 \xc2\xa0, a lone \x85")
	f.Fuzz(func(t *testing.T, s string) {
		for _, sgr := range []bool{false, true} {
			out := TextOnly(s, sgr)
			rest := onlySGR.ReplaceAllString(out, "")
			if !sgr {
				rest = out
			}
			if strings.ContainsFunc(rest, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
				t.Fatalf("TextOnly(%q, %v) = %q carries a control", s, sgr, out)
			}
			if len(out) > len(s)*maxCUF/3+len(s) {
				t.Fatalf("TextOnly(%q) grew to %d bytes", s, len(out))
			}
		}
		// The plain print, whose fast path skips TextOnly for a screen
		// without controls, prints what TextOnly makes of it.
		var b bytes.Buffer
		PrintScreen(&b, []byte(s), true)
		if want := strings.TrimRight(TextOnly(s, false), "\n") + "\n"; b.String() != want {
			t.Fatalf("PrintScreen(%q, plain) = %q, want %q", s, b.String(), want)
		}
	})
}
