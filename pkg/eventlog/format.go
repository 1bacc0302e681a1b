package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/ptyorg/pty/pkg/layout"
)

// Format renders an event for people: "HH:MM:SS  <session>  <type>  <payload>"
// with the time in loc and the payload as compact JSON (omitted when empty).
// Text that came from a terminal program (titles, notifications) is escaped
// so it cannot drive the reader's terminal.
func Format(l Line, loc *time.Location) string {
	clock := "--:--:--"
	if t := layout.ParseTime(l.Event.TS); !t.IsZero() {
		clock = t.In(loc).Format("15:04:05")
	}
	s := fmt.Sprintf("%s  %s  %s", clock, printable(l.Session()), printable(l.Event.Type))
	if len(l.Event.Fields) > 0 {
		s += "  " + compactPayload(l.Event.Fields)
	}
	return s
}

func compactPayload(fields map[string]any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return "{}"
	}
	// encoding/json escapes C0 controls but passes DEL and C1 (0x9b is a
	// one-byte CSI) through; they can only occur inside strings, where a
	// \u escape keeps the JSON valid.
	var out strings.Builder
	for _, r := range strings.TrimRight(buf.String(), "\n") {
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}
