// Package jsonx checks JSON that people type (a state value, an event's
// data) with encoding/json, whose errors say where the input is wrong. It
// uses fmt and reflect, so only code the session daemon never runs may
// call it; the daemon's own JSON goes through internal/jsonlite.
package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Compact validates a JSON document and returns it compacted. what names
// the input in the error.
func Compact(what string, b []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s is empty: give a JSON value such as \"text\", 42, true, null, [1,2] or {\"k\":1}", what)
	}
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return nil, fmt.Errorf("%s is not valid JSON (%v): quote strings, as in '\"text\"'", what, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return json.RawMessage(buf.Bytes()), nil
}
