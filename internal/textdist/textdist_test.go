package textdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"list", "list", 0}, {"lsit", "list", 2}, {"comand", "command", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
