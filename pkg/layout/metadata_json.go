package layout

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/jsonlite"
)

// Metadata is read and written by hand rather than by encoding/json's
// reflection, so that the session daemon, which reads and rewrites it,
// links neither (see internal/jsonlite). The output is the bytes
// encoding/json wrote for the struct tags, and the input is read as
// json.Unmarshal read it; tests hold both to encoding/json.

// metadataFields is MetadataFields in struct order; a test checks it
// against the struct tags.
var metadataFields = [...]string{
	"command", "args", "displayCommand", "cwd", "createdAt", "exitCode", "signal", "killed", "exitedAt",
	"lastLines", "tags", "displayName", "rows", "cols", "scrollback", "ephemeral", "isolateEnv", "extraEnv",
	"unsetEnv", "env", "generation", "daemonPid", "lastAttachAt", "lastOutputAt", "activity", "recovery", "state",
}

// appendJSON appends m compact, as json.Marshal wrote it: known fields in
// struct order (omitempty ones only when set), then Extra in key order.
func (m *Metadata) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"command":`...)
	b = jsonlite.AppendString(b, m.Command)
	b = append(b, `,"args":`...)
	b = appendStrings(b, m.Args)
	b = appendStringField(b, "displayCommand", m.DisplayCommand, false)
	b = appendStringField(b, "cwd", m.Cwd, false)
	b = appendStringField(b, "createdAt", m.CreatedAt, false)
	if m.ExitCode != nil {
		b = appendIntField(b, "exitCode", *m.ExitCode, false)
	}
	if m.Signal != nil {
		b = appendIntField(b, "signal", *m.Signal, false)
	}
	if m.Killed {
		b = append(b, `,"killed":true`...)
	}
	b = appendStringField(b, "exitedAt", m.ExitedAt, true)
	if len(m.LastLines) > 0 {
		b = append(b, `,"lastLines":`...)
		b = appendStrings(b, m.LastLines)
	}
	b = appendStringMapField(b, "tags", m.Tags)
	if m.DisplayName != nil {
		b = appendStringField(b, "displayName", *m.DisplayName, false)
	}
	b = appendIntField(b, "rows", m.Rows, true)
	b = appendIntField(b, "cols", m.Cols, true)
	if m.Scrollback != nil {
		b = appendIntField(b, "scrollback", *m.Scrollback, false)
	}
	if m.Ephemeral {
		b = append(b, `,"ephemeral":true`...)
	} else if m.zeroes&zeroEphemeral != 0 {
		b = append(b, `,"ephemeral":false`...)
	}
	if m.IsolateEnv {
		b = append(b, `,"isolateEnv":true`...)
	} else if m.zeroes&zeroIsolateEnv != 0 {
		b = append(b, `,"isolateEnv":false`...)
	}
	b = appendEnvField(b, "extraEnv", m.ExtraEnv, m.zeroes&zeroExtraEnv != 0)
	if len(m.UnsetEnv) > 0 {
		b = append(b, `,"unsetEnv":`...)
		b = appendStrings(b, m.UnsetEnv)
	} else if m.UnsetEnv != nil && m.zeroes&zeroUnsetEnv != 0 {
		b = append(b, `,"unsetEnv":[]`...)
	}
	b = appendEnvField(b, "env", m.Env, m.zeroes&zeroEnv != 0)
	b = appendStringField(b, "generation", m.Generation, true)
	b = appendIntField(b, "daemonPid", m.DaemonPid, true)
	b = appendStringField(b, "lastAttachAt", m.LastAttachAt, true)
	b = appendStringField(b, "lastOutputAt", m.LastOutputAt, true)
	if len(m.Activity) > 0 {
		b = append(b, `,"activity":`...)
		b = appendStrings(b, m.Activity)
	}
	if len(m.Recovery) > 0 {
		b = append(b, `,"recovery":`...)
		if b, err = jsonlite.AppendCompact(b, m.Recovery); err != nil {
			return nil, errs.Wrap("recovery", err)
		}
	}
	if len(m.State) > 0 {
		b = append(b, `,"state":{`...)
		if b, err = appendRawEntries(b, m.State, true); err != nil {
			return nil, errs.Wrap("state", err)
		}
		b[len(b)-1] = '}' // the comma after the last entry
	}
	// Unknown fields continue the object, raw, as the old encoder wrote
	// them (which made a nil one an error there too).
	b = append(b, ',')
	if b, err = appendRawEntries(b, m.Extra, false); err != nil {
		return nil, err
	}
	b[len(b)-1] = '}' // the comma after the last field
	return b, nil
}

func appendStringField(b []byte, key, v string, omitEmpty bool) []byte {
	if omitEmpty && v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsonlite.AppendString(b, v)
}

func appendIntField(b []byte, key string, v int, omitEmpty bool) []byte {
	if omitEmpty && v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// appendEnvField is appendStringMapField, except that an empty map read
// as {} (kept) is written as {}.
func appendEnvField(b []byte, key string, m map[string]string, kept bool) []byte {
	if len(m) == 0 && m != nil && kept {
		return append(append(append(append(b, ',', '"'), key...), '"', ':'), "{}"...)
	}
	return appendStringMapField(b, key, m)
}

func appendStringMapField(b []byte, key string, m map[string]string) []byte {
	if len(m) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendStringMap(b, m)
}

// appendStrings writes a []string as json.Marshal does: nil is null.
func appendStrings(b []byte, a []string) []byte {
	b, _ = jsonlite.AppendArray(b, a, appendStringValue)
	return b
}

// appendStringMap writes a map[string]string as json.Marshal does: keys
// sorted, nil is null.
func appendStringMap(b []byte, m map[string]string) []byte {
	b, _ = jsonlite.AppendObject(b, m, appendStringValue)
	return b
}

// keep records whether field f was read with its zero value (for a map or
// a slice, null clears it, as it clears the value; for a bool, which null
// leaves alone, it is not called).
func (z *zeroFields) keep(f zeroFields, zero bool) {
	if zero {
		*z |= f
	} else {
		*z &^= f
	}
}

func appendStringValue(b []byte, s string) ([]byte, error) { return jsonlite.AppendString(b, s), nil }

// appendRawEntries writes "key":value, for each of m's keys in order, each
// value compacted. A nil value is null when nilIsNull (json.RawMessage's
// own encoding) and an error otherwise.
func appendRawEntries(b []byte, m map[string]json.RawMessage, nilIsNull bool) ([]byte, error) {
	for _, k := range sortedKeys(m) {
		b = jsonlite.AppendString(b, k)
		b = append(b, ':')
		v := m[k]
		if v == nil && nilIsNull {
			b = append(b, "null,"...)
			continue
		}
		var err error
		if b, err = jsonlite.AppendCompact(b, v); err != nil {
			return nil, errs.Wrap("field "+strconv.Quote(k), err)
		}
		b = append(b, ',')
	}
	return b, nil
}

// decodeJSON reads b into m, which it resets, as json.Unmarshal filled the
// struct: a key matches its field exactly or, failing that, in another
// letter case; a later duplicate wins, except that maps merge; null leaves
// a string, number or bool alone and clears a slice, map or pointer.
// Keys that match no field exactly are kept in Extra, raw (so a field in
// another letter case is both read and kept, as before).
func (m *Metadata) decodeJSON(b []byte) error {
	*m = Metadata{}
	d := jsonlite.NewDecoder(b)
	if d.Null() {
		return d.End() // an empty record, to encoding/json
	}
	err := d.ObjectBytes(func(k []byte) error {
		name := exactField(k)
		if name == "" {
			// Unknown, or known in another letter case: kept raw,
			// and in the second case read into its field too.
			key := string(k)
			name = fieldNamed(key)
			at := *d
			raw, err := d.Raw()
			if err != nil {
				return err
			}
			if m.Extra == nil {
				m.Extra = map[string]json.RawMessage{}
			}
			m.Extra[key] = raw
			if name == "" {
				return nil
			}
			*d = at
		}
		if err := m.decodeField(d, name); err != nil {
			return errs.Wrap(strconv.Quote(string(k)), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return d.End()
}

// exactField is the field named exactly k, "" when none: fieldNamed's
// common case, a switch the compiler turns into a few comparisons rather
// than a walk through metadataFields (a test keeps the two in step).
func exactField(k []byte) string {
	switch string(k) {
	case "command":
		return "command"
	case "args":
		return "args"
	case "displayCommand":
		return "displayCommand"
	case "cwd":
		return "cwd"
	case "createdAt":
		return "createdAt"
	case "exitCode":
		return "exitCode"
	case "signal":
		return "signal"
	case "killed":
		return "killed"
	case "exitedAt":
		return "exitedAt"
	case "lastLines":
		return "lastLines"
	case "tags":
		return "tags"
	case "displayName":
		return "displayName"
	case "rows":
		return "rows"
	case "cols":
		return "cols"
	case "scrollback":
		return "scrollback"
	case "ephemeral":
		return "ephemeral"
	case "isolateEnv":
		return "isolateEnv"
	case "extraEnv":
		return "extraEnv"
	case "unsetEnv":
		return "unsetEnv"
	case "env":
		return "env"
	case "generation":
		return "generation"
	case "daemonPid":
		return "daemonPid"
	case "lastAttachAt":
		return "lastAttachAt"
	case "lastOutputAt":
		return "lastOutputAt"
	case "activity":
		return "activity"
	case "recovery":
		return "recovery"
	case "state":
		return "state"
	}
	return ""
}

// fieldNamed returns the field key names: the one spelled exactly so, or
// else one spelled so in another letter case, as encoding/json matches
// them; "" when none.
func fieldNamed(key string) string {
	for _, f := range metadataFields {
		if f == key {
			return f
		}
	}
	for _, f := range metadataFields {
		if strings.EqualFold(f, key) {
			return f
		}
	}
	return ""
}

func (m *Metadata) decodeField(d *jsonlite.Decoder, name string) error {
	var err error
	switch name {
	case "command":
		err = jsonlite.Into(d, &m.Command, d.String)
	case "args":
		m.Args, err = d.Strings()
	case "displayCommand":
		err = jsonlite.Into(d, &m.DisplayCommand, d.String)
	case "cwd":
		err = jsonlite.Into(d, &m.Cwd, d.String)
	case "createdAt":
		err = jsonlite.Into(d, &m.CreatedAt, d.String)
	case "exitCode":
		m.ExitCode, err = jsonlite.Ptr(d, d.Int)
	case "signal":
		m.Signal, err = jsonlite.Ptr(d, d.Int)
	case "killed":
		err = jsonlite.Into(d, &m.Killed, d.Bool)
	case "exitedAt":
		err = jsonlite.Into(d, &m.ExitedAt, d.String)
	case "lastLines":
		m.LastLines, err = d.Strings()
	case "tags":
		m.Tags, err = d.StringMap(m.Tags)
	case "displayName":
		m.DisplayName, err = jsonlite.Ptr(d, d.String)
	case "rows":
		err = jsonlite.Into(d, &m.Rows, d.Int)
	case "cols":
		err = jsonlite.Into(d, &m.Cols, d.Int)
	case "scrollback":
		m.Scrollback, err = jsonlite.Ptr(d, d.Int)
	case "ephemeral":
		isNull := d.Peek() == 'n'
		err = jsonlite.Into(d, &m.Ephemeral, d.Bool)
		if !isNull {
			m.zeroes.keep(zeroEphemeral, !m.Ephemeral)
		}
	case "isolateEnv":
		isNull := d.Peek() == 'n'
		err = jsonlite.Into(d, &m.IsolateEnv, d.Bool)
		if !isNull {
			m.zeroes.keep(zeroIsolateEnv, !m.IsolateEnv)
		}
	case "extraEnv":
		m.ExtraEnv, err = d.StringMap(m.ExtraEnv)
		m.zeroes.keep(zeroExtraEnv, m.ExtraEnv != nil && len(m.ExtraEnv) == 0)
	case "unsetEnv":
		m.UnsetEnv, err = d.Strings()
		m.zeroes.keep(zeroUnsetEnv, m.UnsetEnv != nil && len(m.UnsetEnv) == 0)
	case "env":
		m.Env, err = d.StringMap(m.Env)
		m.zeroes.keep(zeroEnv, m.Env != nil && len(m.Env) == 0)
	case "generation":
		err = jsonlite.Into(d, &m.Generation, d.String)
	case "daemonPid":
		err = jsonlite.Into(d, &m.DaemonPid, d.Int)
	case "lastAttachAt":
		err = jsonlite.Into(d, &m.LastAttachAt, d.String)
	case "lastOutputAt":
		err = jsonlite.Into(d, &m.LastOutputAt, d.String)
	case "activity":
		m.Activity, err = d.Strings()
	case "recovery":
		m.Recovery, err = d.Raw()
	case "state":
		m.State, err = d.RawObject(m.State)
	}
	return err
}
