package client

import (
	"strconv"
	"testing"
)

func lines(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, prefix+strconv.Itoa(i))
	}
	return out
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// overlap finds how many of a reattach's history lines the terminal
// already has.
func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		name        string
		got, have   []string
		win, expect int
		want        int
	}{
		{"the counted overlap", lines("n", 10, 80), lines("n", 1, 20), 71, 11, 11},
		{"a count that ran behind", lines("n", 5, 80), lines("n", 1, 20), 76, 11, 16},
		{"a count that ran ahead", lines("n", 15, 80), lines("n", 1, 20), 66, 11, 6},
		{"older than the terminal's scrollback (peek -f)", lines("n", 1, 80), lines("n", 30, 45), 99, 45, 45},
		{"nothing in common", lines("n", 50, 80), lines("n", 1, 20), 31, 5, 0},
		{"beyond the window", lines("n", 1, 80), lines("n", 1, 70), 64, 64, 0},
		{"unknown counts: the largest", lines("n", 10, 80), lines("n", 1, 20), 64, -1, 11},
		{"repeated lines: the count decides", repeat("same", 80), repeat("same", 40), 80, 30, 30},
		{"repeated lines, unknown count: all the window", repeat("same", 80), repeat("same", 40), 64, -1, 64},
		{"an empty scrollback: the count", lines("n", 1, 80), nil, 80, 7, 7},
		{"an empty scrollback, unknown count", lines("n", 1, 80), nil, 80, -1, 0},
	} {
		if got := overlap(c.got, c.have, c.win, c.expect); got != c.want {
			t.Errorf("%s: overlap = %d, want %d", c.name, got, c.want)
		}
	}
}
