package layout

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen is the longest id a file name can hold with its suffixes.
const MaxIDLen = 255

// MaxDisplayName is the longest display name, in code points.
const MaxDisplayName = 160

// reservedIDSuffixes are endings an id may not have, compared without
// regard to letter case (macOS roots usually are case-insensitive). A
// session's files are named <id><suffix>, so an id ending in ".events"
// would own "<id>.events.lock", the event lock of another session; the
// others would make a name in the root read as a different kind of file
// (debris detection and the event follower split names at the last
// suffix), or look like a temporary file that readers skip and gc deletes.
var reservedIDSuffixes = []string{".json", ".jsonl", ".events", ".sock", ".pid", ".lock", ".tmp", ".gc-claim"}

// ValidateID checks a session id on its own: characters, length, and the
// names that would escape the root or collide with the root's own file
// names. Every way of naming a session (run --id, pty.toml ids, metadata
// --id, $PTY_SESSION) goes through it, and so does reading the root: a
// name that fails it is not a session.
func ValidateID(id string) error {
	// Its messages are put together without fmt: pty-peek and pty-list
	// check every id they are given, and link no fmt (test/peek,
	// test/list).
	switch {
	case id == "":
		return errors.New("session id is empty: use letters, digits, '.', '_' or '-'")
	case id == "." || id == "..":
		return errors.New("session id " + strconv.Quote(id) + " is not allowed: choose a name other than . or ..")
	case len(id) > MaxIDLen:
		return errors.New("session id is " + strconv.Itoa(len(id)) + " bytes long: at most " + strconv.Itoa(MaxIDLen) + " are allowed")
	}
	for i, r := range id {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			continue
		}
		if _, size := utf8.DecodeRuneInString(id[i:]); r == utf8.RuneError && size == 1 {
			return errors.New("session id " + strconv.Quote(id) + " contains the byte 0x" + hex2(id[i]) + ", which is not valid UTF-8: use only letters, digits, '.', '_' or '-'")
		}
		return errors.New("session id " + strconv.Quote(id) + " contains " + strconv.QuoteRune(r) + ": use only letters, digits, '.', '_' or '-'")
	}
	switch id[0] {
	case '-':
		return errors.New("session id " + strconv.Quote(id) + " starts with '-', so it would read as an option (did --id miss its value?): start it with a letter, digit or '_'")
	case '.':
		return errors.New("session id " + strconv.Quote(id) + " starts with '.', which would make its files hidden: start it with a letter, digit or '_'")
	}
	lower := strings.ToLower(id)
	if strings.Contains(lower, ".tmp.") {
		return errors.New("session id " + strconv.Quote(id) + " contains \".tmp.\", which marks pty's temporary files: choose another id")
	}
	for _, s := range reservedIDSuffixes {
		if strings.HasSuffix(lower, s) {
			return errors.New("session id " + strconv.Quote(id) + " ends in " + strconv.Quote(s) + ", like the names of pty's own files: choose another id")
		}
	}
	return nil
}

// hex2 is b as two lower-case hex digits, as fmt's %02x writes it.
func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// ValidateIDInRoot also checks that the id's socket path fits the kernel
// limit under root.
func ValidateIDInRoot(root, id string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	if p := filepath.Join(root, id+".sock"); len(p) > MaxSocketPath {
		return fmt.Errorf("session id %q is too long for this root: its socket path would be %d bytes, over the %d-byte limit; use a shorter id", id, len(p), MaxSocketPath)
	}
	return nil
}

// ValidateDisplayName checks a human label. Names need not be unique; a
// reference that matches several is refused at resolution time instead.
func ValidateDisplayName(name string) error {
	if name == "" {
		return fmt.Errorf("display name is empty: give a name or use --no-display-name")
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("display name is not valid UTF-8")
	}
	if strings.TrimSpace(name) != name {
		return fmt.Errorf("display name %q has leading or trailing spaces: trim it", name)
	}
	if n := utf8.RuneCountInString(name); n > MaxDisplayName {
		return fmt.Errorf("display name is %d characters long: at most %d are allowed", n, MaxDisplayName)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("display name %q contains a control character or line break: use one line of printable text", name)
		}
	}
	if r, ok := firstInvisible(name); ok {
		return invisibleErr(fmt.Sprintf("display name %q", name), r)
	}
	return nil
}
