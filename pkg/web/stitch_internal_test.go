package web

import (
	"strings"
	"testing"
)

// overlap finds the longest run at the start of a reconnect's history
// that the emulator's history ends with.
func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		got, have string
		want      int
	}{
		{"", "a b", 0},
		{"a b", "", 0},
		{"c d e", "a b c d", 2},
		{"a b c", "a b c", 3},
		{"x y", "a b c", 0},
		{"b b b c", "a b b", 2},
		{"a b a b c", "x a b a b", 4},
		{"a a a", "a a a a a", 3},
		{"b c", "a b c d b c", 2},
	} {
		if n := overlap(strings.Fields(c.got), strings.Fields(c.have)); n != c.want {
			t.Errorf("overlap(%q, %q) = %d, want %d", c.got, c.have, n, c.want)
		}
	}
}
