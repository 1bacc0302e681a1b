// Package detachkey is the attach detach key, shared by the client (which
// reads the keyboard when it relays) and the daemon (which reads it
// itself when the client hands it the terminal).
package detachkey

import (
	"bytes"
	"sync"
	"time"
)

// Key is Ctrl+\; a terminal in kitty keyboard mode reports it as kitty.
const Key = 0x1c

var kitty = []byte("\x1b[92;5u")

// Window is how long a first Ctrl+\ waits for a second one, which sends a
// literal Ctrl+\ to the session instead of detaching.
const Window = 300 * time.Millisecond

// Filter turns what the user types into input for the session, minus the
// detach key: a first Ctrl+\ arms a Window timer that calls Detach, a
// second one within the window is sent through as a literal Ctrl+\.
// ReadOnly, a single press detaches at once, since there is nothing to
// pass it to.
type Filter struct {
	ReadOnly bool
	Send     func([]byte) error // the input, in order
	Detach   func()             // called once the user has detached

	mu      sync.Mutex
	pending bool
	armed   uint64 // which press the running timer belongs to
}

// Feed filters one read of the keyboard.
func (k *Filter) Feed(b []byte) error {
	// Walk the keys in order so a doubled Ctrl+\ lands between the bytes
	// typed around it.
	fwd := b[:0:0]
	plain := true
	for i := 0; i < len(b); {
		n := keyLen(b[i:])
		if n == 0 {
			if !plain {
				fwd = append(fwd, b[i])
			}
			i++
			continue
		}
		if plain {
			fwd = append(fwd, b[:i]...)
			plain = false
		}
		i += n
		if k.ReadOnly {
			k.Detach()
			return nil
		}
		k.mu.Lock()
		if k.pending {
			k.pending = false
			fwd = append(fwd, Key)
		} else {
			k.pending = true
			k.armed++
			armed := k.armed
			time.AfterFunc(Window, func() {
				k.mu.Lock()
				fire := k.pending && k.armed == armed
				k.mu.Unlock()
				if fire {
					k.Detach()
				}
			})
		}
		k.mu.Unlock()
	}
	if plain {
		fwd = b
	}
	if len(fwd) == 0 || k.ReadOnly {
		return nil
	}
	return k.Send(fwd)
}

// keyLen is the length of a detach key at the start of b, or 0.
func keyLen(b []byte) int {
	if b[0] == Key {
		return 1
	}
	if bytes.HasPrefix(b, kitty) {
		return len(kitty)
	}
	return 0
}
