package layout

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ptyorg/pty/internal/jsonx"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxUserEventType is the longest user event type, in bytes.
const MaxUserEventType = 200

// MaxUserEventPayload bounds the data and text of one user event together.
// An event is one line of the log, and followers read it whole.
const MaxUserEventPayload = 64 << 10

// ValidateUserEventType checks a type for EmitUser: "user." followed by a
// non-empty name without whitespace or control characters. Every other type
// belongs to pty itself, and a reader must be able to trust it.
func ValidateUserEventType(typ string) error {
	name, ok := strings.CutPrefix(typ, EventUserPrefix)
	switch {
	case !ok:
		return fmt.Errorf("event type %q is reserved: only user.* types can be emitted (for example user.build-done)", typ)
	case name == "":
		return fmt.Errorf("event type %q has no name after \"user.\": write it as user.NAME, for example user.build-done", typ)
	case len(typ) > MaxUserEventType:
		return fmt.Errorf("event type is %d bytes long: at most %d are allowed", len(typ), MaxUserEventType)
	case !utf8.ValidString(name):
		return fmt.Errorf("event type %q is not valid UTF-8", typ)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("event type %q contains whitespace or a control character: write it as one word, for example user.build-done", typ)
		}
	}
	return nil
}

// emitUser appends one user.* event {data?, text?} to a session's log under
// its event lock. data, when not nil, must be JSON; text, when not nil, is
// kept as given. The session must exist: an event log without a session
// would be debris.
func emitUser(root, id, typ string, data json.RawMessage, text *string) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	if err := ValidateUserEventType(typ); err != nil {
		return err
	}
	ev := NewEvent(id, typ)
	ev.Fields = map[string]any{}
	size := 0
	if data != nil {
		d, err := jsonx.Compact("event data (--json)", data)
		if err != nil {
			return err
		}
		ev.Fields["data"] = d
		size += len(d)
	}
	if text != nil {
		if !utf8.ValidString(*text) {
			return errors.New("event text is not valid UTF-8")
		}
		ev.Fields["text"] = *text
		size += len(*text)
	}
	if size > MaxUserEventPayload {
		return fmt.Errorf("event payload is %d bytes: at most %d (64 KiB) are allowed; keep large data in a file or in pty state", size, MaxUserEventPayload)
	}
	if len(ev.Fields) == 0 {
		ev.Fields = nil
	}
	l, err := acquireLock(pathsFor(root, id).EventsLock(), eventLockWait)
	if err != nil {
		return fmt.Errorf("emit %s to %s: %w", typ, id, err)
	}
	defer l.Release()
	// Checked under the lock: rm removes the log under the same lock, so a
	// session removed meanwhile does not get a fresh orphan log.
	if _, err := os.Stat(pathsFor(root, id).Meta()); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("session %s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("emit %s to %s: %w", typ, id, err)
	}
	return AppendEventsLocked(root, id, ev)
}
