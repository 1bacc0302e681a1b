package layout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"
)

// Event types written to <id>.events.jsonl (PUBLIC FORMAT: every type is in
// docs/disk-layout.md; a test fails when one is missing there). user.* types
// are open-ended and documented as a family.
const (
	EventBell                = "bell"
	EventTitleChange         = "title_change"
	EventNotification        = "notification"
	EventFocusRequest        = "focus_request"
	EventCursorVisible       = "cursor_visible"
	EventSessionStart        = "session_start"
	EventSessionExit         = "session_exit"
	EventSessionExec         = "session_exec"
	EventSessionRespawn      = "session_respawn"
	EventSessionAbandoned    = "session_abandoned"
	EventSessionFlapping     = "session_flapping"
	EventDescendantsSurvived = "session_descendants_survived"
	EventDisplayNameChange   = "display_name_change"
	EventTagsChange          = "tags_change"
	EventMetadataChange      = "metadata_change"
	EventStateSet            = "state.set"
	EventStateDelete         = "state.delete"
	EventUserPrefix          = "user."
)

// EventTypes lists every concrete event type, for docs checks and for
// validating `--wait TYPE`.
func EventTypes() []string {
	return []string{
		EventBell, EventTitleChange, EventNotification, EventFocusRequest, EventCursorVisible,
		EventSessionStart, EventSessionExit, EventSessionExec, EventSessionRespawn,
		EventSessionAbandoned, EventSessionFlapping, EventDescendantsSurvived,
		EventDisplayNameChange, EventTagsChange, EventMetadataChange,
		EventStateSet, EventStateDelete,
	}
}

// Retention: past EventsMaxLines lines the log is rewritten to the newest
// EventsKeepLines. Counting lines is skipped below eventsCheckBytes, since a
// log that small cannot hold EventsMaxLines events of any useful size.
const (
	EventsMaxLines   = 1000
	EventsKeepLines  = 500
	eventsCheckBytes = 40_000
)

// EventLockWait is how long an event writer waits for a busy event lock.
// Each holder keeps it for a write or two (with fsyncs, tens of
// milliseconds on a busy disk), so a long queue of writers (20 scripts
// tagging one session at once) can take seconds to drain; giving up
// early would turn a slow update into a lost one.
const EventLockWait = 30 * time.Second

// Event is one line of the event log: {"session","type","ts",...payload}.
type Event struct {
	Session string
	Type    string
	TS      string
	Fields  map[string]any
}

// NewEvent makes an event stamped now. kv are payload key/value pairs.
func NewEvent(session, typ string, kv ...any) Event {
	e := Event{Session: session, Type: typ, TS: Now()}
	for i := 0; i+1 < len(kv); i += 2 {
		if e.Fields == nil {
			e.Fields = map[string]any{}
		}
		e.Fields[kv[i].(string)] = kv[i+1]
	}
	return e
}

// MarshalJSON flattens the payload next to the envelope fields.
func (e Event) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(e.Fields)+3)
	for k, v := range e.Fields {
		m[k] = v
	}
	m["session"], m["type"], m["ts"] = e.Session, e.Type, e.TS
	// Envelope first for people reading the file; json.Marshal sorts map
	// keys, so write the envelope by hand.
	var buf bytes.Buffer
	buf.WriteString(`{"session":`)
	writeJSON(&buf, e.Session)
	buf.WriteString(`,"type":`)
	writeJSON(&buf, e.Type)
	buf.WriteString(`,"ts":`)
	writeJSON(&buf, e.TS)
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		if k != "session" && k != "type" && k != "ts" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		buf.WriteByte(',')
		writeJSON(&buf, k)
		buf.WriteByte(':')
		b, err := json.Marshal(e.Fields[k])
		if err != nil {
			return nil, fmt.Errorf("event %s field %s: %w", e.Type, k, err)
		}
		buf.Write(b)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, v string) {
	b, _ := json.Marshal(v)
	buf.Write(b)
}

// UnmarshalJSON splits the envelope from the payload.
func (e *Event) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	e.Session, _ = m["session"].(string)
	e.Type, _ = m["type"].(string)
	e.TS, _ = m["ts"].(string)
	delete(m, "session")
	delete(m, "type")
	delete(m, "ts")
	if len(m) == 0 {
		m = nil
	}
	e.Fields = m
	return nil
}

// AppendEvents appends events to a session's log under its event lock.
func AppendEvents(root, id string, evs ...Event) error {
	if len(evs) == 0 {
		return nil
	}
	l, err := AcquireLock(PathsFor(root, id).EventsLock(), EventLockWait)
	if err != nil {
		return fmt.Errorf("append event to %s: %w", id, err)
	}
	defer l.Release()
	return AppendEventsLocked(root, id, evs...)
}

// AppendEventsLocked appends while the caller holds the event lock. All the
// lines go out in one write on an O_APPEND file, so a concurrent writer that
// ignores our lock (an older pty) still cannot split a line of ours.
func AppendEventsLocked(root, id string, evs ...Event) error {
	var buf bytes.Buffer
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	path := PathsFor(root, id).Events()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append event to %s: %w", id, err)
	}
	_, werr := f.Write(buf.Bytes())
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("append event to %s: %w", id, werr)
	}
	if size >= eventsCheckBytes {
		return trimEvents(path)
	}
	return nil
}

// trimEvents rewrites the log to its newest EventsKeepLines lines once it
// holds more than EventsMaxLines. The caller holds the event lock, so no
// append can land between our read and our rename and be lost; the rename
// means readers see the old file or the new one, never a partial line.
func trimEvents(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("trim %s: %w", path, err)
	}
	if bytes.Count(b, []byte{'\n'}) <= EventsMaxLines {
		return nil
	}
	lines := bytes.SplitAfter(b, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	keep := bytes.Join(lines[len(lines)-EventsKeepLines:], nil)
	return WriteFileAtomic(path, keep, 0o600)
}

// ReadEvents parses a session's log, skipping lines that are not JSON (a
// line cut by a crash must not hide the rest).
func ReadEvents(root, id string) ([]Event, error) {
	b, err := os.ReadFile(PathsFor(root, id).Events())
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []Event
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		var e Event
		if json.Unmarshal(line, &e) == nil && e.Type != "" {
			out = append(out, e)
		}
	}
	return out, nil
}
