package picker

import (
	"strings"
	"unicode"
)

// Fields are the texts of a session the filter looks at, in the order a
// match in them ranks: what people call the session (id, display name),
// then what it runs, then its tags, then where it runs.
type Fields struct {
	Names   []string
	Command string
	Tags    []string
	Dir     string
}

// Match reports whether every space-separated term of query matches one of
// f's texts, and how well: higher is better. A term matches a text when its
// letters occur in it in order; a term whose letters are found only by
// taking some from one text and some from another does not match, so that
// "api" does not find a session by the a of its directory, the p of its
// command and the i of a tag. Matching ignores case unless a term has an
// upper-case letter (smart case, as in fzf and ripgrep). An empty query
// matches everything with score 0.
//
// A term that occurs as it is typed (contiguous) in a name ranks above one
// contiguous in the command, then in a tag, then in the directory, and any
// of those above letters scattered within one text, in the same order of
// texts. Within a rank the score favours runs, word starts and early
// matches (fuzzyTerm).
func Match(query string, f Fields) (int, bool) {
	groups := [][]string{f.Names, {f.Command}, f.Tags, {f.Dir}}
	total := 0
	for _, term := range strings.Fields(query) {
		best, found := 0, false
		for g, texts := range groups {
			for _, text := range texts {
				s, ok := fuzzyTerm(term, text)
				if !ok {
					continue
				}
				rank := g // 0 is best
				if !contains(text, term) {
					rank += len(groups)
				}
				s = (2*len(groups)-rank)*rankStep + min(max(s, 0), rankStep-1)
				if !found || s > best {
					best, found = s, true
				}
			}
		}
		if !found {
			return 0, false
		}
		total += best
	}
	return total, true
}

// rankStep is more than fuzzyTerm gives any term a person types, so that a
// rank is never outweighed by a better score in a lower one.
const rankStep = 1 << 16

// contains reports whether term occurs in text as typed, with Match's
// smart case.
func contains(text, term string) bool {
	if strings.IndexFunc(term, unicode.IsUpper) >= 0 {
		return strings.Contains(text, term)
	}
	return strings.Contains(strings.ToLower(text), strings.ToLower(term))
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
