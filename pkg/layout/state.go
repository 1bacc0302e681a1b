package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ptyorg/pty/internal/jsonx"
	"unicode/utf8"
)

// StateEventValueMax is the largest value, in bytes of compact JSON, that a
// state.set event carries. Larger values are announced by key and size only
// (valueBytes): the event log is capped by line count, so one big value per
// line would make it megabytes, and followers only need to know to re-read.
const StateEventValueMax = 4096

// MaxStateValue bounds one state value (compact JSON), and MaxStateBytes
// the whole bag (keys and values): every `pty list` parses every session's
// metadata, and every change rewrites it, so the bag must stay reasonably
// small. MaxStateKeys bounds the number of keys.
const (
	MaxStateValue = 16 << 20
	MaxStateBytes = 16 << 20
	MaxStateKeys  = 1024
)

// MaxStateDepth bounds how deeply a state value nests arrays and objects.
// The record is pretty-printed, and the original pty indents every level,
// so a deep value costs indentation on every line: 20 KB nested 10,000
// deep became a 187 MB record. Real data is a few levels deep.
const MaxStateDepth = 32

// MaxStateKey is the longest state key, in bytes.
const MaxStateKey = 256

// ValidateStateKey checks a state key: non-empty, one line of printable text.
func ValidateStateKey(k string) error {
	switch {
	case k == "":
		return errors.New("state key is empty: give a key name")
	case len(k) > MaxStateKey:
		return fmt.Errorf("state key is %d bytes long: at most %d are allowed", len(k), MaxStateKey)
	case !utf8.ValidString(k):
		return fmt.Errorf("state key %q is not valid UTF-8", k)
	case hasControl(k):
		return fmt.Errorf("state key %q contains a control character or line break: use one line of printable text", k)
	}
	return nil
}

// stateSet stores value (any JSON) under key in the session's state bag in
// one locked change and appends one state.set event {key, value}, or
// {key, valueBytes} when the value is over StateEventValueMax. Setting the
// value a key already holds writes nothing and appends nothing.
func stateSet(root, id, key string, value json.RawMessage) (changed bool, m *Metadata, err error) {
	if err := ValidateID(id); err != nil {
		return false, nil, err
	}
	if err := ValidateStateKey(key); err != nil {
		return false, nil, err
	}
	v, err := jsonx.Compact("state value", value)
	if err != nil {
		return false, nil, err
	}
	if len(v) > MaxStateValue {
		return false, nil, fmt.Errorf("state value is %d bytes: at most %d (16 MiB) are allowed; keep large data in a file and store its path", len(v), MaxStateValue)
	}
	if jsonDepth(v) > MaxStateDepth {
		return false, nil, fmt.Errorf("state value nests arrays and objects more than %d levels deep: at most %d are allowed; flatten it", MaxStateDepth, MaxStateDepth)
	}
	return change(root, id, func(m *Metadata) ([]Event, error) {
		if old, ok := m.State[key]; ok {
			if oc, err := jsonx.Compact("", old); err == nil && bytes.Equal(oc, v) {
				return nil, ErrNoChange
			}
		} else if len(m.State) >= MaxStateKeys {
			return nil, fmt.Errorf("session %s already has %d state keys: at most %d are allowed; delete some (pty state delete) or keep the data in one value", id, len(m.State), MaxStateKeys)
		}
		total := len(key) + len(v)
		for k, old := range m.State {
			if k != key {
				total += len(k) + len(old)
			}
		}
		if total > MaxStateBytes {
			return nil, fmt.Errorf("session %s's state would be %d bytes with this value: at most %d (16 MiB) are allowed in all; delete keys you no longer need, or keep large data in a file and store its path", id, total, MaxStateBytes)
		}
		if m.State == nil {
			m.State = map[string]json.RawMessage{}
		}
		m.State[key] = v
		ev := NewEvent(id, EventStateSet, "key", key)
		if len(v) <= StateEventValueMax {
			ev.Fields["value"] = v
		} else {
			ev.Fields["valueBytes"] = len(v)
		}
		return []Event{ev}, nil
	})
}

// stateDelete removes key from the session's state bag in one locked change
// and appends one state.delete event {key}. Deleting a key that is not set
// writes nothing, appends nothing and is not an error (changed is false).
func stateDelete(root, id, key string) (changed bool, m *Metadata, err error) {
	if err := ValidateID(id); err != nil {
		return false, nil, err
	}
	if err := ValidateStateKey(key); err != nil {
		return false, nil, err
	}
	return change(root, id, func(m *Metadata) ([]Event, error) {
		if _, ok := m.State[key]; !ok {
			return nil, ErrNoChange
		}
		delete(m.State, key)
		if len(m.State) == 0 {
			m.State = nil
		}
		return []Event{NewEvent(id, EventStateDelete, "key", key)}, nil
	})
}

// jsonDepth returns how deeply a valid JSON document nests arrays and
// objects (a scalar is 0, [] is 1), counting brackets outside strings.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	in, esc := false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in:
			switch c {
			case '\\':
				esc = true
			case '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}
