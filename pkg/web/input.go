package web

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/ptyorg/pty/pkg/keys"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/term"
)

// pageMsg is a message from a session page.
type pageMsg struct {
	T    string `json:"t"`    // "ack", "key", "text" or "paste"
	Key  string `json:"key"`  // KeyboardEvent.key, for "key"
	Mods int    `json:"mods"` // modShift|modAlt|modCtrl|modMeta, for "key"
	Data string `json:"data"` // for "text" and "paste"
}

// Modifier bits of pageMsg.Mods.
const (
	modShift = 1
	modAlt   = 2
	modCtrl  = 4
	modMeta  = 8
)

type inputState struct {
	f     *follower
	c     *wsConn
	write bool
	acks  chan struct{} // the page drew a screen update
	// tell shows the page an error message; nil: as a JSON error.
	tell func(msg string)
}

func (in *inputState) readLoop(ctx context.Context) {
	for {
		typ, b, err := in.c.c.Read(ctx)
		if err != nil {
			return
		}
		var m pageMsg
		if typ != websocket.MessageText || json.Unmarshal(b, &m) != nil {
			in.c.c.Close(websocket.StatusUnsupportedData, "messages are JSON text")
			return
		}
		switch m.T {
		case "ack":
			select {
			case in.acks <- struct{}{}:
			default:
			}
		case "key", "text", "paste":
			if !in.write {
				in.c.sendJSON(ctx, map[string]string{"t": "error", "msg": "read-only: input is refused (start pty web with --write to type)"})
				continue
			}
			data, ok := in.bytesFor(m)
			if !ok {
				continue
			}
			if err := in.f.send(data, in); err != nil {
				in.c.sendJSON(ctx, map[string]string{"t": "error", "msg": "could not type into the session: " + err.Error()})
			}
		}
	}
}

// lost tells the page that n of its sends may not have reached the
// session, and why.
func (in *inputState) lost(n int, why string) {
	what := "1 key or paste"
	if n > 1 {
		what = strconv.Itoa(n) + " keys or pastes"
	}
	msg := what + " typed last may not have reached the session (" + why + "): look at the screen before typing again"
	if in.tell != nil {
		in.tell(msg)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	in.c.sendJSON(ctx, map[string]string{"t": "error", "msg": msg})
}

// bytesFor encodes one input message for the session, following its
// modes (application cursor keys, bracketed paste).
func (in *inputState) bytesFor(m pageMsg) ([]byte, bool) {
	if len(m.Data) > MaxPaste || !utf8.ValidString(m.Data) {
		return nil, false
	}
	modes := in.f.modes()
	switch m.T {
	case "text":
		if m.Data == "" {
			return nil, false
		}
		return []byte(strings.ReplaceAll(m.Data, "\n", "\r")), true
	case "paste":
		if m.Data == "" {
			return nil, false
		}
		return pasteBytes(m.Data, modes.BracketedPaste), true
	}
	return keyBytes(m.Key, m.Mods, modes)
}

// pasteBytes is what a terminal sends for pasted text: newlines as
// carriage returns, and inside brackets when the program asked for them
// (with any closing bracket in the text removed, so the paste cannot end
// early and have the rest taken as typed keys).
func pasteBytes(text string, bracketed bool) []byte {
	text = strings.ReplaceAll(text, "\r\n", "\r")
	text = strings.ReplaceAll(text, "\n", "\r")
	if !bracketed {
		return []byte(text)
	}
	for strings.Contains(text, lifecycle.PasteEnd) {
		text = strings.ReplaceAll(text, lifecycle.PasteEnd, "")
	}
	return []byte(lifecycle.PasteStart + text + lifecycle.PasteEnd)
}

// browserKeys maps KeyboardEvent.key names to pkg/keys names.
var browserKeys = map[string]string{
	"Enter": "return", "Tab": "tab", "Escape": "esc", "Backspace": "backspace", "Delete": "delete",
	"Insert": "insert", "ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right",
	"Home": "home", "End": "end", "PageUp": "pageup", "PageDown": "pagedown", " ": "space",
	"F1": "f1", "F2": "f2", "F3": "f3", "F4": "f4", "F5": "f5", "F6": "f6",
	"F7": "f7", "F8": "f8", "F9": "f9", "F10": "f10", "F11": "f11", "F12": "f12",
}

// keyBytes encodes a key press as `pty send --seq key:SPEC` does, and as
// the session's modes want it: unmodified cursor keys in application
// mode send ESC O, not ESC [.
func keyBytes(key string, mods int, m term.Modes) ([]byte, bool) {
	if mods&modMeta != 0 {
		return nil, false // the browser's and the system's shortcuts
	}
	name, named := browserKeys[key]
	if !named {
		r, size := utf8.DecodeRuneInString(key)
		if size != len(key) || r < ' ' || r == utf8.RuneError {
			return nil, false // "Shift", "Unidentified", dead keys...
		}
		if mods&(modCtrl|modAlt) == 0 {
			return []byte(key), true // the character itself
		}
		if r >= utf8.RuneSelf {
			if mods&(modCtrl|modAlt) == modAlt {
				return append([]byte{0x1b}, key...), true
			}
			return nil, false
		}
		name = strings.ToLower(key)
		// shift is already in the character, except for letters, where
		// ctrl+shift+a differs from ctrl+a.
		if r < 'A' || r > 'Z' {
			mods &^= modShift
		}
	}
	spec := ""
	if mods&modCtrl != 0 {
		spec += "ctrl+"
	}
	if mods&modAlt != 0 {
		spec += "alt+"
	}
	if mods&modShift != 0 {
		spec += "shift+"
	}
	b, err := keys.ParseFor(spec+name, keys.Modes{AppCursor: m.AppCursor, AppKeypad: m.AppKeypad})
	if err != nil {
		return nil, false
	}
	return b, true
}
