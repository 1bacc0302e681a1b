package picker

import (
	"strings"
	"unicode"
)

// Fuzzy reports whether every space-separated term of query occurs in text
// as a subsequence (letters in order, gaps allowed), and how well: higher
// is better. Matching ignores case unless a term has an upper-case letter
// (smart case, as in fzf and ripgrep). An empty query matches everything
// with score 0.
//
// The score favours what people mean when they type a few letters: runs of
// consecutive letters, letters at the start of a word (after a space, '/',
// '-', '_', '.', '=' or a case change), and matches early in the text, where
// the id and display name are.
func Fuzzy(query, text string) (int, bool) {
	total := 0
	for _, term := range strings.Fields(query) {
		s, ok := fuzzyTerm(term, text)
		if !ok {
			return 0, false
		}
		total += s
	}
	return total, true
}

func fuzzyTerm(term, text string) (int, bool) {
	caseSensitive := strings.IndexFunc(term, unicode.IsUpper) >= 0
	pat := []rune(term)
	hay := []rune(text)
	if !caseSensitive {
		for i, r := range pat {
			pat[i] = unicode.ToLower(r)
		}
	}
	fold := func(r rune) rune {
		if caseSensitive {
			return r
		}
		return unicode.ToLower(r)
	}
	// Try each place the first letter occurs and keep the best greedy
	// match from there: cheap, and good enough to prefer "web" in
	// "web-server" over w…e…b scattered across a path.
	best, found := 0, false
	for start := 0; start < len(hay); start++ {
		if fold(hay[start]) != pat[0] {
			continue
		}
		score, ok := scoreFrom(pat, hay, start, fold)
		if ok && (!found || score > best) {
			best, found = score, true
		}
	}
	return best, found
}

func scoreFrom(pat, hay []rune, start int, fold func(rune) rune) (int, bool) {
	score := 0
	prev := -2
	pi := 0
	for hi := start; hi < len(hay) && pi < len(pat); hi++ {
		if fold(hay[hi]) != pat[pi] {
			continue
		}
		s := 1
		if hi == prev+1 {
			s += 8 // consecutive
		}
		if wordStart(hay, hi) {
			s += 6
		}
		score += s
		prev = hi
		pi++
	}
	if pi < len(pat) {
		return 0, false
	}
	// Earlier is better, but only a little: a good run late in the text
	// still beats a scattered one at its start.
	score -= min(start/8, 10)
	return score, true
}

func wordStart(hay []rune, i int) bool {
	if i == 0 {
		return true
	}
	p, c := hay[i-1], hay[i]
	switch p {
	case ' ', '/', '-', '_', '.', '=', '#', ':', '~':
		return true
	}
	return unicode.IsLower(p) && unicode.IsUpper(c)
}
