package term

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// seqLog records what a parser hands on, in one format for both parsers.
type seqLog struct{ strings.Builder }

func (l *seqLog) printRune(r rune) { l.WriteString("P" + strconv.Itoa(int(r)) + " ") }
func (l *seqLog) execute(b byte)   { l.WriteString("X" + strconv.Itoa(int(b)) + " ") }
func (l *seqLog) handleCSI(cmd seqCmd, ps seqParams) {
	l.WriteString("C" + strconv.Itoa(int(cmd)) + l.params(ps) + " ")
}
func (l *seqLog) handleESC(cmd seqCmd) { l.WriteString("E" + strconv.Itoa(int(cmd)) + " ") }
func (l *seqLog) handleDCS(cmd seqCmd, ps seqParams, data []byte) {
	l.WriteString("D" + strconv.Itoa(int(cmd)) + l.params(ps) + strconv.Quote(string(data)) + " ")
}

func (l *seqLog) params(ps seqParams) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("," + strconv.Itoa(p.Param(-1)) + strconv.FormatBool(p.HasMore()))
	}
	return b.String()
}

// toolkitParser runs the parser the emulator was written against, logging
// into l as seqLog does.
func toolkitParser(l *seqLog) *ansi.Parser {
	conv := func(ps ansi.Params) seqParams {
		out := make(seqParams, len(ps))
		for i, p := range ps {
			out[i] = seqParam(p)
		}
		return out
	}
	p := ansi.NewParser()
	p.SetDataSize(maxData)
	p.SetHandler(ansi.Handler{
		Print:     l.printRune,
		Execute:   l.execute,
		HandleCsi: func(cmd ansi.Cmd, ps ansi.Params) { l.handleCSI(seqCmd(cmd), conv(ps)) },
		HandleEsc: func(cmd ansi.Cmd) { l.handleESC(seqCmd(cmd)) },
		HandleDcs: func(cmd ansi.Cmd, ps ansi.Params, data []byte) { l.handleDCS(seqCmd(cmd), conv(ps), data) },
	})
	return p
}

// TestParserMatchesToolkit: the package's parser hands on what the
// toolkit parser (github.com/charmbracelet/x/ansi, which the emulator
// used before it had its own) does, byte for byte, and is in the same
// state after each byte, for streams heavy in the bytes that matter to a
// parser: C0 and C1 controls, introducers, parameters, intermediates,
// UTF-8 and long parameter lists and payloads.
func TestParserMatchesToolkit(t *testing.T) {
	pieces := []string{
		"\x1b", "[", "]", "P", "X", "^", "_", "\\", "?", ">", "<", "=", ";", ":", "0", "1", "9",
		"12345678901234567890", "$", " ", "!", "\"", "#", "(", ")", "q", "m", "H", "r", "p",
		"\x07", "\x08", "\x0d", "\x0a", "\x18", "\x1a", "\x7f", "\x00", "\x9b", "\x9c", "\x9d",
		"\x90", "\x98", "\x9e", "\x9f", "\x84", "\x85", "\x99", "\xa0", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x98\x80", "\xc3", "\xe2\x82", "\xff", "\xf5", "a", "Z",
		strings.Repeat("1;", 40), strings.Repeat("2:", 40), strings.Repeat("x", 5000),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		var in []byte
		for range 1 + rng.IntN(60) {
			if rng.IntN(8) == 0 {
				in = append(in, byte(rng.IntN(256)))
			} else {
				in = append(in, pieces[rng.IntN(len(pieces))]...)
			}
		}
		var ours, theirs seqLog
		p := parser{s: &ours}
		p.reset()
		tp := toolkitParser(&theirs)
		for i, b := range in {
			p.advance(b)
			tp.Advance(b)
			if byte(p.state) != tp.State() || ours.String() != theirs.String() {
				t.Fatalf("round %d, after byte %d (%q, after %q): state %d, want %d\nours:   %s\ntheirs: %s",
					round, i, b, tail(in[:i], 40), p.state, tp.State(), tail(ours.String(), 300), tail(theirs.String(), 300))
			}
		}
	}
}

func tail[S ~string | ~[]byte](s S, n int) S { return s[max(0, len(s)-n):] }

// parserInput is what reaches the parser rather than the Screen's fast
// paths: private modes, sequences with intermediates, DCS queries.
var parserInput = []byte(strings.Repeat("\x1b[?1049h\x1b[?25l\x1b[>4;2m\x1b[4 q\x1b[?2026h\x1bP$qm\x1b\\\x1b(0\x1b)B\x1b[!p\x1b[?2026l", 64))

type nopHandler struct{}

func (nopHandler) printRune(r rune)                                {}
func (nopHandler) execute(b byte)                                  {}
func (nopHandler) handleCSI(cmd seqCmd, ps seqParams)              {}
func (nopHandler) handleESC(cmd seqCmd)                            {}
func (nopHandler) handleDCS(cmd seqCmd, ps seqParams, data []byte) {}

func BenchmarkParser(b *testing.B) {
	p := parser{s: nopHandler{}}
	p.reset()
	b.SetBytes(int64(len(parserInput)))
	for b.Loop() {
		for _, c := range parserInput {
			p.advance(c)
		}
	}
}

// BenchmarkToolkitParser is BenchmarkParser's input through the parser
// the package's replaced, for comparison.
func BenchmarkToolkitParser(b *testing.B) {
	p := ansi.NewParser()
	p.SetDataSize(maxData)
	p.SetHandler(ansi.Handler{
		Print: func(rune) {}, Execute: func(byte) {},
		HandleCsi: func(ansi.Cmd, ansi.Params) {}, HandleEsc: func(ansi.Cmd) {},
		HandleDcs: func(ansi.Cmd, ansi.Params, []byte) {},
	})
	b.SetBytes(int64(len(parserInput)))
	for b.Loop() {
		for _, c := range parserInput {
			p.Advance(c)
		}
	}
}
