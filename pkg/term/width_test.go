package term

import (
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestWidthTableMatchesRunewidth: the generated table is go-runewidth's
// answer for every rune (only tests link go-runewidth).
func TestWidthTableMatchesRunewidth(t *testing.T) {
	cond := &runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}
	bad := 0
	for r := rune(-1); r <= 0x10ffff+1; r++ {
		if got, want := tableWidth(r), cond.RuneWidth(r); got != want {
			if bad++; bad <= 10 {
				t.Errorf("tableWidth(%U) = %d, go-runewidth says %d", r, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d runes differ; run go generate ./pkg/term/", bad)
	}
}
