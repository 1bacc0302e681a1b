// Package textdist measures how far apart two words are, for "did you
// mean" suggestions (unknown commands, misspelt pty.toml fields). It is
// tiny and dependency-free so the dispatcher can use it without slowing
// its start.
package textdist

// Levenshtein returns the edit distance between a and b (insertions,
// deletions and substitutions of bytes).
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Near reports whether name is a likely meaning of the mistyped word:
// within a third of the word's length in edits (at least one), or
// beginning with it. Commands and flags share this rule, so a typo is
// suggested for alike whatever was misspelt.
func Near(word, name string) bool {
	return Levenshtein(word, name) <= max(1, len(word)/3) || (len(word) >= 2 && len(name) > len(word) && name[:len(word)] == word)
}
