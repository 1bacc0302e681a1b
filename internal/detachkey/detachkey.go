// Package detachkey is the attach detach key, shared by the client (which
// reads the keyboard when it relays) and the daemon (which reads it
// itself when the client hands it the terminal).
package detachkey

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/keys"
)

// Key is a detach key: a ctrl key, which a terminal sends as one control
// byte, or in kitty keyboard mode as ESC [ code ; 5 u. The zero Key is
// the default, Ctrl+\.
type Key struct {
	c    byte // the key's character: 'a' for Ctrl+A; 0 for the default
	none bool // detaching by key is off
}

// Default is Ctrl+\, the original pty's detach key.
var Default = Key{c: '\\'}

// None never detaches: every key goes to the program.
var None = Key{none: true}

// Env is the environment variable that chooses the detach key when no
// --detach-key is given.
const Env = "PTY_DETACH_KEY"

// Accepted says which keys may detach, for help and errors.
const Accepted = `ctrl+ and a letter other than h i j m, or one of @ \ ] ^ _ (as in pty send's key syntax: ctrl+a, C-], ctrl+\), or none`

// typing names the ctrl keys that a terminal sends for keys people type
// all the time: as a detach key, every Enter or Tab would detach.
var typing = map[byte]string{
	'h': "Backspace",
	'i': "Tab",
	'j': "newline (Ctrl+J, which Enter sends in many programs)",
	'm': "Enter",
	'[': "Escape, which starts every escape sequence",
	'?': "Backspace on most terminals",
}

// ctrlPunct is the punctuation whose ctrl form is a control byte. Ctrl+[
// is ESC, which starts every escape sequence, and Ctrl+? is DEL, which
// most terminals send for Backspace: neither can be a detach key.
const ctrlPunct = `@\]^_`

// Error is why a spec is not a detach key.
type Error struct {
	Spec string
	Why  string // what is wrong and what to use instead
}

func (e *Error) Error() string { return strconv.Quote(e.Spec) + " is not a detach key: " + e.Why }

// Parse reads a detach key in send's key syntax ("ctrl+a", "C-]") or
// "none".
func Parse(spec string) (Key, error) {
	if strings.EqualFold(strings.TrimSpace(spec), "none") {
		return None, nil
	}
	mods, key, err := keys.Split(spec)
	if err == nil && mods == keys.Ctrl && len(key) == 1 {
		if what, ok := typing[key[0]]; ok {
			return Key{}, &Error{spec, "the terminal sends it for " + what + "; use " + Accepted}
		}
		if key[0] >= 'a' && key[0] <= 'z' || strings.IndexByte(ctrlPunct, key[0]) >= 0 {
			return Key{c: key[0]}, nil
		}
	}
	return Key{}, &Error{spec, "use " + Accepted}
}

func (k Key) char() byte {
	if k.c == 0 {
		return '\\'
	}
	return k.c
}

// IsNone reports whether detaching by key is off.
func (k Key) IsNone() bool { return k.none }

// IsDefault reports whether k is Ctrl+\.
func (k Key) IsDefault() bool { return !k.none && k.char() == '\\' }

// Spec is the key in send's syntax ("ctrl+a", "none"), as Parse reads it.
func (k Key) Spec() string {
	if k.none {
		return "none"
	}
	return "ctrl+" + string(k.char())
}

// String is how messages name the key: "Ctrl+A", "Ctrl+\".
func (k Key) String() string {
	if k.none {
		return "none"
	}
	return "Ctrl+" + strings.ToUpper(string(k.char()))
}

// With is how a message says to press the key: " with Ctrl+A", or
// nothing when detaching by key is off.
func (k Key) With() string {
	if k.none {
		return ""
	}
	return " with " + k.String()
}

// Byte is the control byte the key sends.
func (k Key) Byte() byte {
	c := k.char()
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 1
	}
	return c ^ 0x40 // @ \ ] ^ _ are 0x40 above their controls
}

// kitty is the key as a terminal in kitty keyboard mode reports it: the
// character's code and the ctrl modifier (1 + 4).
func (k Key) kitty() []byte {
	return []byte("\x1b[" + strconv.Itoa(int(k.char())) + ";5u")
}

// kittyRelease is the key's release as a terminal reports it when a
// program asked kitty mode for event types (event 3).
func (k Key) kittyRelease() []byte {
	return []byte("\x1b[" + strconv.Itoa(int(k.char())) + ";5:3u")
}

// Source gives the key a command detaches with, worked out only when it
// is needed (a bad $PTY_DETACH_KEY must not stop "run -d", which never
// attaches), from the environment getenv reads. A nil Source is Ctrl+\.
type Source func(getenv func(string) string) (Key, error)

// Key is the key s gives, or why the environment's key is not one.
func (s Source) Key(getenv func(string) string) (Key, error) {
	if s == nil {
		return Default, nil
	}
	return s(getenv)
}

// Window is how long a first press waits for a second one, which sends
// the key to the session instead of detaching.
const Window = 300 * time.Millisecond

// Filter turns what the user types into input for the session, minus the
// detach key, the way a tmux prefix works: a first press arms a Window
// timer that calls Detach; the key pressed again within the window is
// sent through as the key itself; any other key within the window
// detaches at once and is not sent (it was typed at pty, not at the
// program). After Detach nothing more is sent. ReadOnly, a single press
// detaches at once, since there is nothing to pass it to; with no detach
// key (None), Ctrl+C does, since a read-only follower sends nothing and
// would otherwise have no way out.
type Filter struct {
	Key      Key
	ReadOnly bool
	Send     func([]byte) error // the input, in order
	Detach   func()             // called once the user has detached

	mu       sync.Mutex
	pending  bool
	detached bool
	armed    uint64 // which press the running timer belongs to
	kitty    []byte
	release  []byte
}

// Feed filters one read of the keyboard.
func (k *Filter) Feed(b []byte) error {
	if k.Key.none {
		if k.ReadOnly {
			if bytes.IndexByte(b, 0x03) >= 0 {
				k.Detach()
			}
			return nil
		}
		if len(b) == 0 {
			return nil
		}
		return k.Send(b)
	}
	if k.kitty == nil {
		k.kitty = k.Key.kitty()
		k.release = k.Key.kittyRelease()
	}
	k.mu.Lock()
	if k.detached {
		k.mu.Unlock()
		return nil
	}
	// Walk the keys in order so a doubled key lands between the bytes
	// typed around it, and a key after a single press is cut off there.
	var fwd []byte
	detach := false
	for i := 0; i < len(b) && !detach; {
		n := k.keyLen(b[i:])
		switch {
		case n == 0 && !k.pending:
			fwd = append(fwd, b[i])
			i++
		case n < 0:
			// The detach key's release (kitty event reporting) is part
			// of the press, not another key.
			i += -n
		case n == 0:
			k.pending, k.detached, detach = false, true, true
		case k.ReadOnly:
			k.detached, detach = true, true
		case k.pending:
			// The second press goes through as it was typed, in the
			// kitty form to a program that asked for that.
			k.pending = false
			fwd = append(fwd, b[i:i+n]...)
			i += n
		default:
			i += n
			k.pending = true
			k.armed++
			armed := k.armed
			time.AfterFunc(Window, func() {
				k.mu.Lock()
				fire := k.pending && k.armed == armed && !k.detached
				if fire {
					k.pending, k.detached = false, true
				}
				k.mu.Unlock()
				if fire {
					k.Detach()
				}
			})
		}
	}
	k.mu.Unlock()
	var err error
	if len(fwd) > 0 && !k.ReadOnly {
		err = k.Send(fwd)
	}
	if detach {
		k.Detach()
	}
	return err
}

// keyLen is the length of the detach key at the start of b, minus that
// of its kitty release event, or 0.
func (k *Filter) keyLen(b []byte) int {
	if b[0] == k.Key.Byte() {
		return 1
	}
	if bytes.HasPrefix(b, k.kitty) {
		return len(k.kitty)
	}
	if bytes.HasPrefix(b, k.release) {
		return -len(k.release)
	}
	return 0
}
