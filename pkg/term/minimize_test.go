package term

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestMinimizeRandom shrinks a failing TestOracleRandom seed to a short
// byte sequence by dropping operations while the difference persists.
// Run it by hand: PTY_TERM_SEED=17 go test ./pkg/term -run TestMinimizeRandom -v
func TestMinimizeRandom(t *testing.T) {
	seed, err := strconv.Atoi(os.Getenv("PTY_TERM_SEED"))
	if err != nil {
		t.Skip("set PTY_TERM_SEED to a failing TestOracleRandom seed")
	}
	rows, cols := randomSize(seed)
	ops := randomOpList(int64(seed), rows, cols, 400)
	if !differsFromTmux(t, rows, cols, ops) {
		t.Skip("no difference")
	}
	for chunk := len(ops) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i < len(ops); {
			cand := append(append([]string(nil), ops[:i]...), ops[min(i+chunk, len(ops)):]...)
			if differsFromTmux(t, rows, cols, cand) {
				ops = cand
			} else {
				i += chunk
			}
		}
	}
	data := strings.Join(ops, "")
	t.Logf("%dx%d %q", rows, cols, data)
	oracleCompare(t, rows, cols, []byte(data), true, true)
}

func differsFromTmux(t *testing.T, rows, cols int, ops []string) bool {
	data := []byte(strings.Join(ops, ""))
	want := runTmux(t, rows, cols, data)
	s := New(rows, cols, Options{})
	s.Write(data)
	y, x, _ := s.Cursor()
	if s.wrapNext {
		x++
	}
	return s.PlainText(false) != want.plain || s.PlainText(true) != want.full ||
		x != want.cx || y != want.cy || len(styleDiffsOpt(s, want.ansi, true)) > 0
}
