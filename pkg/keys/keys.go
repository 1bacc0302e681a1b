// Package keys turns a human key name such as "ctrl+c", "shift+tab" or
// "C-x" into the bytes an xterm-compatible terminal sends for that key, so
// `pty send --seq key:SPEC` types into a session exactly what a person at a
// keyboard would.
//
// Encodings follow xterm: legacy bytes wherever a key has one (ctrl+letter
// is the letter's code minus 96, alt prefixes ESC), the xterm modifier
// parameter for cursor, editing and function keys (ESC[1;5A is ctrl+up),
// and CSI-u (ESC[code;mods u) for combinations that have no legacy form,
// such as shift+return, so the modifier is never silently dropped.
package keys

import (
	"fmt"
	"strconv"
	"strings"
)

// Modifier bits, as xterm counts them: the parameter is 1 + the sum.
const (
	Shift = 1
	Alt   = 2
	Ctrl  = 4
)

// Prefix marks a --seq item that is a key rather than literal text.
const Prefix = "key:"

// named keys whose escape sequence takes the xterm modifier parameter.
type csiKey struct {
	// final is the final byte; num the number before it for "~" keys
	// (0 for the letter-final ones).
	final byte
	num   int
	// ss3 is true for F1-F4, whose unmodified form is ESC O <final>.
	ss3 bool
}

var csiKeys = map[string]csiKey{
	"up":       {final: 'A'},
	"down":     {final: 'B'},
	"right":    {final: 'C'},
	"left":     {final: 'D'},
	"home":     {final: 'H'},
	"end":      {final: 'F'},
	"insert":   {final: '~', num: 2},
	"delete":   {final: '~', num: 3},
	"pageup":   {final: '~', num: 5},
	"pagedown": {final: '~', num: 6},
	"f1":       {final: 'P', ss3: true},
	"f2":       {final: 'Q', ss3: true},
	"f3":       {final: 'R', ss3: true},
	"f4":       {final: 'S', ss3: true},
	"f5":       {final: '~', num: 15},
	"f6":       {final: '~', num: 17},
	"f7":       {final: '~', num: 18},
	"f8":       {final: '~', num: 19},
	"f9":       {final: '~', num: 20},
	"f10":      {final: '~', num: 21},
	"f11":      {final: '~', num: 23},
	"f12":      {final: '~', num: 24},
}

// controlKeys are keys that send one control byte; with shift or ctrl
// they have no legacy encoding and go out as CSI-u.
var controlKeys = map[string]byte{
	"return":    '\r',
	"tab":       '\t',
	"esc":       0x1b,
	"backspace": 0x7f,
	"space":     ' ',
}

// aliases map alternative spellings to the canonical names above.
var aliases = map[string]string{
	"enter":      "return",
	"ret":        "return",
	"cr":         "return",
	"escape":     "esc",
	"bs":         "backspace",
	"del":        "delete",
	"ins":        "insert",
	"pgup":       "pageup",
	"page_up":    "pageup",
	"page-up":    "pageup",
	"prior":      "pageup",
	"pgdn":       "pagedown",
	"pgdown":     "pagedown",
	"page_down":  "pagedown",
	"page-down":  "pagedown",
	"next":       "pagedown",
	"spc":        "space",
	"arrowup":    "up",
	"arrowdown":  "down",
	"arrowleft":  "left",
	"arrowright": "right",
}

var modifierNames = map[string]int{
	"ctrl": Ctrl, "control": Ctrl, "ctl": Ctrl, "c": Ctrl,
	"alt": Alt, "meta": Alt, "opt": Alt, "option": Alt, "m": Alt,
	"shift": Shift, "s": Shift,
}

// Parse returns the bytes for one key spec (without the "key:" prefix).
// Specs are case-insensitive; modifiers come first, joined to each other
// and to the key by '+', '-' or '_'.
func Parse(spec string) ([]byte, error) {
	mods, key, err := split(spec)
	if err != nil {
		return nil, err
	}
	return encode(spec, mods, key)
}

// split separates the modifiers from the key name. The key is whatever is
// left once no modifier-plus-separator prefix matches, which lets the key
// itself be a separator character ("ctrl+-", "shift++").
func split(spec string) (int, string, error) {
	if spec == "" {
		return 0, "", fmt.Errorf("empty key: write key:NAME, for example key:return or key:ctrl+c")
	}
	s := strings.ToLower(spec)
	mods := 0
	for {
		i := strings.IndexAny(s, "+-_")
		if i <= 0 || i == len(s)-1 {
			break
		}
		bit, ok := modifierNames[s[:i]]
		if !ok {
			break
		}
		if mods&bit != 0 {
			return 0, "", fmt.Errorf("key %q repeats a modifier", spec)
		}
		mods |= bit
		s = s[i+1:]
	}
	if a, ok := aliases[s]; ok {
		s = a
	}
	return mods, s, nil
}

func encode(spec string, mods int, key string) ([]byte, error) {
	if k, ok := csiKeys[key]; ok {
		return csiSeq(k, mods), nil
	}
	if b, ok := controlKeys[key]; ok {
		return controlSeq(b, mods), nil
	}
	if len(key) == 1 && key[0] > ' ' && key[0] < 0x7f {
		return charSeq(key[0], mods), nil
	}
	return nil, fmt.Errorf("unknown key %q: use a letter, digit or punctuation character, or one of %s, optionally after ctrl+, alt+ or shift+", spec, strings.Join(Names(), ", "))
}

// Names lists the named keys, for help and errors.
func Names() []string {
	return []string{"return", "enter", "tab", "esc", "backspace", "delete", "insert", "space",
		"up", "down", "left", "right", "home", "end", "pageup", "pagedown", "f1 to f12"}
}

func param(mods int) int { return 1 + mods }

func csiSeq(k csiKey, mods int) []byte {
	switch {
	case mods == 0 && k.ss3:
		return []byte{0x1b, 'O', k.final}
	case mods == 0 && k.num == 0:
		return []byte{0x1b, '[', k.final}
	case mods == 0:
		return []byte("\x1b[" + strconv.Itoa(k.num) + "~")
	case k.num == 0:
		return []byte("\x1b[1;" + strconv.Itoa(param(mods)) + string(k.final))
	default:
		return []byte("\x1b[" + strconv.Itoa(k.num) + ";" + strconv.Itoa(param(mods)) + "~")
	}
}

func csiU(code, mods int) []byte {
	return []byte("\x1b[" + strconv.Itoa(code) + ";" + strconv.Itoa(param(mods)) + "u")
}

func controlSeq(b byte, mods int) []byte {
	switch {
	case mods == 0:
		return []byte{b}
	case mods == Alt:
		// ESC-prefixed is what every terminal sends for alt+key, and what
		// readline binds (alt+backspace deletes a word).
		return []byte{0x1b, b}
	case b == '\t' && mods == Shift:
		return []byte("\x1b[Z") // back-tab, understood far more widely than CSI-u
	case b == ' ' && mods&^Alt == Ctrl:
		return withAlt([]byte{0}, mods) // ctrl+space is NUL
	}
	return csiU(int(b), mods)
}

func withAlt(b []byte, mods int) []byte {
	if mods&Alt != 0 {
		return append([]byte{0x1b}, b...)
	}
	return b
}

// legacyCtrl holds the punctuation that has a C0 control form under ctrl.
var legacyCtrl = map[byte]byte{
	'@': 0x00, '[': 0x1b, '\\': 0x1c, ']': 0x1d, '^': 0x1e, '_': 0x1f, '?': 0x7f,
}

func charSeq(c byte, mods int) []byte {
	letter := c >= 'a' && c <= 'z'
	switch {
	case mods&^Alt == 0:
		return withAlt([]byte{c}, mods)
	case letter && mods&^Alt == Shift:
		return withAlt([]byte{c - 32}, mods)
	case letter && mods&^Alt == Ctrl:
		return withAlt([]byte{c - 96}, mods)
	case mods&^Alt == Ctrl:
		if b, ok := legacyCtrl[c]; ok {
			return withAlt([]byte{b}, mods)
		}
	}
	// shift on a digit or punctuation, ctrl+shift on a letter, ctrl on a
	// character with no control form: only CSI-u can say it.
	return csiU(int(c), mods)
}

// Item resolves one --seq item: "key:SPEC" is a key, anything else is
// literal text sent as is.
func Item(item string) ([]byte, error) {
	spec, ok := strings.CutPrefix(item, Prefix)
	if !ok {
		return []byte(item), nil
	}
	b, err := Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("--seq %q: %w", item, err)
	}
	return b, nil
}
