package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/jsonlite"
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
	EventSessionRepublished  = "session_republished"
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
		EventSessionAbandoned, EventSessionFlapping, EventDescendantsSurvived, EventSessionRepublished,
		EventDisplayNameChange, EventTagsChange, EventMetadataChange,
		EventStateSet, EventStateDelete,
	}
}

// Retention: past EventsMaxLines lines or EventsMaxBytes bytes the log is
// rewritten to its newest lines, at most EventsKeepLines of them and at
// most EventsKeepBytes (but always the newest line). Lines alone do not
// bound it: events carry values (a tags_change holds every tag twice).
// Counting lines is skipped below eventsCheckBytes, since a log that
// small cannot hold EventsMaxLines events of any useful size.
const (
	EventsMaxLines   = 1000
	EventsKeepLines  = 500
	EventsMaxBytes   = 2 << 20
	EventsKeepBytes  = 1 << 20
	eventsCheckBytes = 40_000
)

// eventLockWait is how long an event writer waits for a busy event lock.
// Each holder keeps it for a write or two (with fsyncs, tens of
// milliseconds on a busy disk), so a long queue of writers (20 scripts
// tagging one session at once) can take seconds to drain; giving up
// early would turn a slow update into a lost one.
const eventLockWait = 30 * time.Second

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
func (e Event) MarshalJSON() ([]byte, error) { return e.appendJSON(nil, json.Marshal) }

// appendJSON appends e as one JSON object, in json.Marshal's bytes: the
// envelope first, for people reading the file, then the payload in key
// order. Plain payload values (see AppendEvents) are written without
// reflection; others by other, and they are an error when other is nil.
func (e Event) appendJSON(b []byte, other func(any) ([]byte, error)) ([]byte, error) {
	b = append(b, `{"session":`...)
	b = jsonlite.AppendString(b, e.Session)
	b = append(b, `,"type":`...)
	b = jsonlite.AppendString(b, e.Type)
	b = append(b, `,"ts":`...)
	b = jsonlite.AppendString(b, e.TS)
	for _, k := range sortedKeys(e.Fields) {
		if k == "session" || k == "type" || k == "ts" {
			continue
		}
		b = append(b, ',')
		b = jsonlite.AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, e.Fields[k], other); err != nil {
			return nil, errs.Wrap("event "+e.Type+" field "+k, err)
		}
	}
	return append(b, '}'), nil
}

// appendValue appends v as json.Marshal does; see appendJSON.
func appendValue(b []byte, v any, other func(any) ([]byte, error)) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsonlite.AppendString(b, v), nil
	case *string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return jsonlite.AppendString(b, *v), nil
	case *int:
		if v == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, int64(*v), 10), nil
	case map[string]*string:
		return jsonlite.AppendObject(b, v, func(b []byte, x *string) ([]byte, error) { return appendValue(b, x, other) })
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), nil
	case uint64:
		return strconv.AppendUint(b, v, 10), nil
	case float64:
		return jsonlite.AppendFloat(b, v, 64)
	case float32:
		return jsonlite.AppendFloat(b, float64(v), 32)
	case json.RawMessage:
		if v == nil {
			return append(b, "null"...), nil
		}
		return jsonlite.AppendCompact(b, v)
	case []string:
		return jsonlite.AppendArray(b, v, appendStringValue)
	case map[string]string:
		return jsonlite.AppendObject(b, v, appendStringValue)
	case []int:
		return jsonlite.AppendArray(b, v, func(b []byte, n int) ([]byte, error) { return strconv.AppendInt(b, int64(n), 10), nil })
	case []any:
		return jsonlite.AppendArray(b, v, func(b []byte, x any) ([]byte, error) { return appendValue(b, x, other) })
	case map[string]any:
		return jsonlite.AppendObject(b, v, func(b []byte, x any) ([]byte, error) { return appendValue(b, x, other) })
	}
	if other == nil {
		return nil, errors.New("not a plain JSON value (string, number, bool, nil, json.RawMessage, or a slice or map of them)")
	}
	o, err := other(v)
	if err != nil {
		return nil, err
	}
	return append(b, o...), nil
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

// appendEventsTo appends events to a session's log under its event lock.
// Their payloads hold plain values only: nil, string, *string, bool, the
// integer and float types, *int, json.RawMessage, []string, []int,
// map[string]string, map[string]*string, and []any and map[string]any of
// plain values; marshal anything else to a json.RawMessage first. Any
// other value is an error. That spares every binary that writes events,
// the session daemon included (a binary every session keeps resident),
// encoding/json's reflection-based encoder: the size rule of
// docs/contributing.md. The bytes are json.Marshal's.
func appendEventsTo(root, id string, evs ...Event) error {
	return appendEvents(root, id, nil, evs)
}

func appendEvents(root, id string, other func(any) ([]byte, error), evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	l, err := acquireLock(pathsFor(root, id).EventsLock(), eventLockWait)
	if err != nil {
		return errs.Wrap("append event to "+id, err)
	}
	defer l.Release()
	return appendEventsLocked(root, id, other, evs)
}

// AppendEventsLocked appends while the caller holds the event lock. All the
// lines go out in one write on an O_APPEND file, so a concurrent writer that
// ignores our lock (an older pty) still cannot split a line of ours.
func AppendEventsLocked(root, id string, evs ...Event) error {
	return appendEventsLocked(root, id, nil, evs)
}

func appendEventsLocked(root, id string, other func(any) ([]byte, error), evs []Event) error {
	buf, err := encodeEvents(evs, other)
	if err != nil {
		return err
	}
	return appendEncodedLocked(root, id, buf)
}

// encodeEvents encodes events as log lines.
func encodeEvents(evs []Event, other func(any) ([]byte, error)) ([]byte, error) {
	var buf []byte
	for _, e := range evs {
		var err error
		if buf, err = e.appendJSON(buf, other); err != nil {
			return nil, err
		}
		buf = append(buf, '\n')
	}
	return buf, nil
}

// appendEncodedLocked appends encoded lines while the caller holds the
// event lock. An error means nothing was appended.
func appendEncodedLocked(root, id string, buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	path := pathsFor(root, id).Events()
	f, err := fsx.OpenNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return errs.Wrap("append event to "+id, err)
	}
	var before int64 = -1
	if fi, err := f.Stat(); err == nil {
		before = fi.Size()
	}
	_, werr := f.Write(buf)
	if werr != nil && before >= 0 {
		// A write cut short (a full disk) must not leave half a line
		// for the next append to run into: we hold the event lock, so
		// everything past the old end is ours.
		f.Truncate(before)
	}
	var size int64
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return errs.Wrap("append event to "+id, werr)
	}
	if size >= eventsCheckBytes {
		// The events are in; a trim that fails (a full disk) is tried
		// again by the next append, and must not make this one look
		// failed to a caller who would then repeat it.
		trimEvents(path)
	}
	return nil
}

// trimEvents rewrites the log to its newest EventsKeepLines lines once it
// holds more than EventsMaxLines. The caller holds the event lock, so no
// append can land between our read and our rename and be lost; the rename
// means readers see the old file or the new one, never a partial line.
func trimEvents(path string) error {
	b, err := fsx.ReadFileNoFollow(path)
	if err != nil {
		return errs.Wrap("trim "+path, err)
	}
	if len(b) <= EventsMaxBytes && bytes.Count(b, []byte{'\n'}) <= EventsMaxLines {
		return nil
	}
	return fsx.WriteFileAtomic(path, keepNewest(b), 0o600)
}

// keepNewest returns the tail of a log that retention keeps: whole lines,
// at most EventsKeepLines and EventsKeepBytes, and at least the newest
// line. A final line without its newline (cut by a crash) is dropped.
func keepNewest(b []byte) []byte {
	end := bytes.LastIndexByte(b, '\n') + 1
	start, lines := end, 0
	for start > 0 && lines < EventsKeepLines {
		i := bytes.LastIndexByte(b[:start-1], '\n') + 1
		if lines > 0 && end-i > EventsKeepBytes {
			break
		}
		start, lines = i, lines+1
	}
	return b[start:end]
}

// readEvents parses a session's log, skipping lines that are not JSON (a
// line cut by a crash must not hide the rest).
func readEvents(root, id string) ([]Event, error) {
	b, err := fsx.ReadFileNoFollow(pathsFor(root, id).Events())
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
