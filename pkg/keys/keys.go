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
//
// Some keys depend on the program's terminal modes, as on a real
// terminal: in application cursor mode (DECCKM, CSI ? 1 h, which less and
// other programs set with smkx) unmodified arrows, Home and End go out as
// SS3 (ESC O A) instead of CSI, and in application keypad mode (DECKPAM,
// ESC =) the keypad sends SS3 sequences instead of its characters.
// ParseFor encodes for given Modes; Parse assumes the normal modes.
//
// It does not use fmt: the session daemon links it (through the detach
// key), and fmt would bring reflection into every session's memory.
package keys

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/ptyorg/pty/internal/errs"
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
	// cursor marks the keys that application cursor mode turns into
	// ESC O <final> when unmodified: the arrows, Home and End.
	cursor bool
}

// Modes are the terminal modes that change what a key sends.
type Modes struct {
	AppCursor bool // DECCKM: CSI ? 1 h
	AppKeypad bool // DECKPAM: ESC =
}

func csiKeysTable() map[string]csiKey {
	return map[string]csiKey{
		"up":       {final: 'A', cursor: true},
		"down":     {final: 'B', cursor: true},
		"right":    {final: 'C', cursor: true},
		"left":     {final: 'D', cursor: true},
		"home":     {final: 'H', cursor: true},
		"end":      {final: 'F', cursor: true},
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
}

// keypadKeys are the numeric keypad's keys: the character each sends in
// the normal keypad mode, and the SS3 final byte that replaces it in
// application keypad mode, as xterm encodes them.
func keypadKeysTable() map[string]struct{ char, final byte } {
	return map[string]struct{ char, final byte }{
		"kp0": {'0', 'p'}, "kp1": {'1', 'q'}, "kp2": {'2', 'r'}, "kp3": {'3', 's'}, "kp4": {'4', 't'},
		"kp5": {'5', 'u'}, "kp6": {'6', 'v'}, "kp7": {'7', 'w'}, "kp8": {'8', 'x'}, "kp9": {'9', 'y'},
		"kpenter": {'\r', 'M'}, "kpmultiply": {'*', 'j'}, "kpplus": {'+', 'k'}, "kpcomma": {',', 'l'},
		"kpminus": {'-', 'm'}, "kpperiod": {'.', 'n'}, "kpdivide": {'/', 'o'}, "kpequal": {'=', 'X'},
	}
}

// keypadAliases are other names of keypad keys, after "kp" and with
// separators removed ("kp_enter", "KP-Add").
func keypadAliasesTable() map[string]string {
	return map[string]string{
		"kpadd": "kpplus", "kpsubtract": "kpminus", "kpdecimal": "kpperiod", "kpdot": "kpperiod",
		"kpslash": "kpdivide", "kpstar": "kpmultiply", "kpasterisk": "kpmultiply",
		"kpseparator": "kpcomma", "kpreturn": "kpenter", "kpequals": "kpequal",
		"kp*": "kpmultiply", "kp+": "kpplus", "kp-": "kpminus", "kp.": "kpperiod", "kp/": "kpdivide",
		"kp,": "kpcomma", "kp=": "kpequal",
	}
}

// controlKeys are keys that send one control byte; with shift or ctrl
// they have no legacy encoding and go out as CSI-u.
func controlKeysTable() map[string]byte {
	return map[string]byte{
		"return":    '\r',
		"tab":       '\t',
		"esc":       0x1b,
		"backspace": 0x7f,
		"space":     ' ',
	}
}

// aliases map alternative spellings to the canonical names above.
func aliasesTable() map[string]string {
	return map[string]string{
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
}

func modifierNamesTable() map[string]int {
	return map[string]int{
		"ctrl": Ctrl, "control": Ctrl, "ctl": Ctrl, "c": Ctrl,
		"alt": Alt, "meta": Alt, "opt": Alt, "option": Alt, "m": Alt,
		"shift": Shift, "s": Shift,
	}
}

// Parse returns the bytes for one key spec (without the "key:" prefix)
// in the normal modes. Specs are case-insensitive; modifiers come first,
// joined to each other and to the key by '+', '-' or '_'.
func Parse(spec string) ([]byte, error) { return ParseFor(spec, Modes{}) }

// ParseFor is Parse for a program in the given modes.
func ParseFor(spec string, m Modes) ([]byte, error) {
	mods, key, err := split(spec)
	if err != nil {
		return nil, err
	}
	return encode(spec, mods, key, m)
}

// Split returns a key spec's modifier bits and its key's canonical name
// ("ctrl+A" is Ctrl and "a", "C-Return" Ctrl and "return"), without
// checking that the key exists.
func Split(spec string) (mods int, key string, err error) { return split(spec) }

// DependsOnModes reports whether the key spec's bytes depend on the
// terminal modes, so that a sender needs to know them.
func DependsOnModes(spec string) bool {
	mods, key, err := split(spec)
	if err != nil {
		return false
	}
	if k, ok := csiKeys[key]; ok {
		return k.cursor && mods == 0
	}
	_, ok := keypadKeys[key]
	return ok
}

// split separates the modifiers from the key name. The key is whatever is
// left once no modifier-plus-separator prefix matches, which lets the key
// itself be a separator character ("ctrl+-", "shift++").
func split(spec string) (int, string, error) {
	tablesOnce.Do(initTables)
	if spec == "" {
		return 0, "", errors.New("empty key: write key:NAME, for example key:return or key:ctrl+c")
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
			return 0, "", errors.New("key " + strconv.Quote(spec) + " repeats a modifier")
		}
		mods |= bit
		s = s[i+1:]
	}
	if a, ok := aliases[s]; ok {
		s = a
	}
	if rest, ok := strings.CutPrefix(s, "kp"); ok && rest != "" {
		if r := strings.TrimLeft(rest, "_-"); r != "" {
			rest = r
		}
		s = "kp" + rest
		if a, ok := keypadAliases[s]; ok {
			s = a
		}
	}
	return mods, s, nil
}

func encode(spec string, mods int, key string, m Modes) ([]byte, error) {
	tablesOnce.Do(initTables)
	if k, ok := csiKeys[key]; ok {
		if k.cursor && mods == 0 && m.AppCursor {
			return []byte{0x1b, 'O', k.final}, nil
		}
		return csiSeq(k, mods), nil
	}
	if k, ok := keypadKeys[key]; ok {
		return keypadSeq(k.char, k.final, mods, m), nil
	}
	if b, ok := controlKeys[key]; ok {
		return controlSeq(b, mods), nil
	}
	if len(key) == 1 && key[0] > ' ' && key[0] < 0x7f {
		return charSeq(key[0], mods), nil
	}
	return nil, errors.New("unknown key " + strconv.Quote(spec) + ": use a letter, digit or punctuation character, or one of " +
		strings.Join(Names(), ", ") + ", optionally after ctrl+, alt+ or shift+")
}

// Names lists the named keys, for help and errors.
func Names() []string {
	return []string{"return", "enter", "tab", "esc", "backspace", "delete", "insert", "space",
		"up", "down", "left", "right", "home", "end", "pageup", "pagedown", "f1 to f12",
		"kp0 to kp9", "kpenter", "kpplus", "kpminus", "kpmultiply", "kpdivide", "kpperiod", "kpcomma", "kpequal"}
}

// keypadSeq encodes a keypad key. In application keypad mode it is SS3
// and its final byte, after ESC for alt as tmux sends it; ctrl and shift
// have no SS3 form that programs agree on, so with them, and in the
// normal keypad mode, the key is its character (Enter is Return).
func keypadSeq(char, final byte, mods int, m Modes) []byte {
	switch {
	case m.AppKeypad && mods&^Alt == 0:
		return withAlt([]byte{0x1b, 'O', final}, mods)
	case char == '\r':
		return controlSeq(char, mods)
	}
	return charSeq(char, mods)
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
func legacyCtrlTable() map[byte]byte {
	return map[byte]byte{
		'@': 0x00, '[': 0x1b, '\\': 0x1c, ']': 0x1d, '^': 0x1e, '_': 0x1f, '?': 0x7f,
	}
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

// ItemDependsOnModes reports whether the --seq item is a key whose bytes
// depend on the terminal modes.
func ItemDependsOnModes(item string) bool {
	spec, ok := strings.CutPrefix(item, Prefix)
	return ok && DependsOnModes(spec)
}

// Item resolves one --seq item in the normal modes: "key:SPEC" is a key,
// anything else is literal text sent as is.
func Item(item string) ([]byte, error) { return ItemFor(item, Modes{}) }

// ItemFor resolves one --seq item for a program in the given modes.
func ItemFor(item string, m Modes) ([]byte, error) {
	spec, ok := strings.CutPrefix(item, Prefix)
	if !ok {
		return []byte(item), nil
	}
	b, err := ParseFor(spec, m)
	if err != nil {
		return nil, errs.Wrap("--seq "+strconv.Quote(item), err)
	}
	return b, nil
}

// The tables are built at the first key looked up rather than at start:
// package initialisation would build them in every program that links
// the package, the session daemon among them (it parses detach keys),
// whose memory is paid once per session.
var (
	tablesOnce    sync.Once
	csiKeys       map[string]csiKey
	keypadKeys    map[string]struct{ char, final byte }
	keypadAliases map[string]string
	controlKeys   map[string]byte
	aliases       map[string]string
	modifierNames map[string]int
	legacyCtrl    map[byte]byte
)

func initTables() {
	csiKeys = csiKeysTable()
	keypadKeys = keypadKeysTable()
	keypadAliases = keypadAliasesTable()
	controlKeys = controlKeysTable()
	aliases = aliasesTable()
	modifierNames = modifierNamesTable()
	legacyCtrl = legacyCtrlTable()
}
