package picker

import (
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// editor is a one-line text field with the editing keys people know from
// shells (readline's emacs bindings): the filter and the prompts of "new
// session" use it.
type editor struct {
	text []rune
	cur  int // cursor position in runes, 0..len(text)
}

func (e *editor) String() string { return string(e.text) }

func (e *editor) Set(s string) {
	e.text = []rune(s)
	e.cur = len(e.text)
}

// Key applies an editing key. handled reports whether the key was an
// editing key at all; edited whether the text changed (moving the cursor
// is handled but not an edit).
func (e *editor) Key(msg tea.KeyMsg) (handled, edited bool) {
	before := string(e.text)
	switch msg.String() {
	case "left", "ctrl+b":
		e.cur = max(0, e.cur-1)
	case "right", "ctrl+f":
		e.cur = min(len(e.text), e.cur+1)
	case "home", "ctrl+a":
		e.cur = 0
	case "end", "ctrl+e":
		e.cur = len(e.text)
	case "alt+b", "alt+left", "ctrl+left":
		e.cur = e.wordLeft()
	case "alt+f", "alt+right", "ctrl+right":
		e.cur = e.wordRight()
	case "backspace", "ctrl+h":
		if e.cur > 0 {
			e.text = append(e.text[:e.cur-1], e.text[e.cur:]...)
			e.cur--
		}
	case "delete", "ctrl+d":
		if e.cur < len(e.text) {
			e.text = append(e.text[:e.cur], e.text[e.cur+1:]...)
		}
	case "ctrl+u":
		e.text = append([]rune{}, e.text[e.cur:]...)
		e.cur = 0
	case "ctrl+k":
		e.text = e.text[:e.cur]
	case "ctrl+w":
		// As in shells: back to the previous whitespace, so "~/src/app"
		// goes in one stroke.
		w := e.cur
		for w > 0 && unicode.IsSpace(e.text[w-1]) {
			w--
		}
		for w > 0 && !unicode.IsSpace(e.text[w-1]) {
			w--
		}
		e.text = append(e.text[:w], e.text[e.cur:]...)
		e.cur = w
	case "alt+backspace", "ctrl+backspace":
		w := e.wordLeft()
		e.text = append(e.text[:w], e.text[e.cur:]...)
		e.cur = w
	case "alt+d":
		w := e.wordRight()
		e.text = append(e.text[:e.cur], e.text[w:]...)
	default:
		if msg.Type != tea.KeyRunes && msg.Type != tea.KeySpace || msg.Alt {
			return false, false
		}
		ins := make([]rune, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			// A paste may carry line breaks or tabs; a one-line field
			// takes them as spaces and drops other control characters.
			switch {
			case r == '\n' || r == '\r' || r == '\t':
				ins = append(ins, ' ')
			case unicode.IsControl(r):
			default:
				ins = append(ins, r)
			}
		}
		if msg.Type == tea.KeySpace && len(ins) == 0 {
			ins = []rune{' '}
		}
		rest := append(ins, e.text[e.cur:]...)
		e.text = append(e.text[:e.cur], rest...)
		e.cur += len(ins)
	}
	return true, string(e.text) != before
}

// wordLeft is where alt+b lands: the start of the word before the cursor,
// skipping the separators in between.
func (e *editor) wordLeft() int {
	i := e.cur
	for i > 0 && !isWord(e.text[i-1]) {
		i--
	}
	for i > 0 && isWord(e.text[i-1]) {
		i--
	}
	return i
}

// wordRight is where alt+f lands: the end of the next word.
func (e *editor) wordRight() int {
	i := e.cur
	for i < len(e.text) && !isWord(e.text[i]) {
		i++
	}
	for i < len(e.text) && isWord(e.text[i]) {
		i++
	}
	return i
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// render draws the text with the cursor shown as a reversed cell where it
// is (a reversed space at the end).
func (e *editor) render(cursor func(...string) string) string {
	var b strings.Builder
	b.WriteString(string(e.text[:e.cur]))
	if e.cur < len(e.text) {
		b.WriteString(cursor(string(e.text[e.cur])))
		b.WriteString(string(e.text[e.cur+1:]))
	} else {
		b.WriteString(cursor(" "))
	}
	return b.String()
}
