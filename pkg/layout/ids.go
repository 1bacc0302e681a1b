package layout

import (
	"fmt"
	mrand "math/rand/v2"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

const idAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// MaxIDLen is the longest id a file name can hold with its suffixes.
const MaxIDLen = 255

// MaxDisplayName is the longest display name, in code points.
const MaxDisplayName = 160

// RandomID returns 8 characters from an alphabet without look-alikes
// (no 0/o, 1/l/i), so ids can be read aloud and typed. An id is a name,
// not a secret, and claiming one checks it is free: math/rand's
// generator (ChaCha8, seeded by the runtime from the kernel) is enough and
// keeps crypto/rand out of the binaries that link layout.
func RandomID() string {
	var b [8]byte
	for i := range b {
		b[i] = idAlphabet[mrand.IntN(len(idAlphabet))]
	}
	return string(b[:])
}

// ValidateID checks a session id on its own: characters, length, and the
// names that would escape the root.
func ValidateID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("session id is empty: use letters, digits, '.', '_' or '-'")
	case id == "." || id == "..":
		return fmt.Errorf("session id %q is not allowed: choose a name other than . or ..", id)
	case len(id) > MaxIDLen:
		return fmt.Errorf("session id is %d bytes long: at most %d are allowed", len(id), MaxIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("session id %q contains %q: use only letters, digits, '.', '_' or '-'", id, rune(c))
		}
	}
	return nil
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
	return nil
}
