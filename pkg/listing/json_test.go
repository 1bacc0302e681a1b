package listing

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

// marshalled is the --json output as encoding/json writes it, which the
// hand-written WriteJSON must equal byte for byte.
func marshalled(t testing.TB, ss []layout.Session) string {
	out := make([]Entry, 0, len(ss))
	for _, s := range ss {
		out = append(out, NewEntry(s))
	}
	var b bytes.Buffer
	if err := writeIndented(&b, out); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func written(t testing.TB, ss []layout.Session) string {
	var b bytes.Buffer
	if err := WriteJSON(&b, ss); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteJSONIsMarshalIndent(t *testing.T) {
	name, empty := "web <&> \u2028 \x1b[31m \xff", ""
	cases := map[string][]layout.Session{
		"none": nil,
		"all kinds": {
			sess("a", layout.Running, time.Hour, func(m *layout.Metadata) {
				m.Tags = map[string]string{"z": "1", "a": "<b>", "": "\t\n"}
				m.DisplayName = &name
				m.Activity = []string{"notified", "bell", "unknown"}
			}),
			sess("b", layout.Exited, 3*time.Hour, exited(-1, time.Minute)),
			sess("c", layout.Vanished, 24*time.Hour, func(m *layout.Metadata) {
				m.DisplayName = &empty
				m.Tags = map[string]string{}
				m.DisplayCommand, m.Command, m.Args = "", "sh", []string{"-c", "echo \"\\\" \u00e9 \U0001F600"}
			}),
			{ID: "d", Meta: &layout.Metadata{}, Status: layout.Vanished, Damaged: "not JSON"},
		},
	}
	for what, ss := range cases {
		if got, want := written(t, ss), marshalled(t, ss); got != want {
			t.Errorf("%s: WriteJSON wrote\n%s\njson.MarshalIndent writes\n%s", what, got, want)
		}
	}
}

// Whatever a record holds, the hand-written --json reads as
// encoding/json's.
func FuzzWriteJSONIsMarshalIndent(f *testing.F) {
	f.Add("a", "sleep 1", "/home/u", "2025-06-01T12:00:00Z", "k", "v", "name", "", 0, true)
	f.Add("b<", "\xff\x00", "\u2028", "", "", "", "", "damaged", -3, false)
	f.Fuzz(func(t *testing.T, id, cmd, cwd, created, tagK, tagV, display, damaged string, code int, running bool) {
		m := &layout.Metadata{Command: cmd, Cwd: cwd, CreatedAt: created, Tags: map[string]string{tagK: tagV}, Activity: []string{"bell", tagV}}
		st := layout.Running
		if !running {
			st = layout.Exited
			m.ExitCode, m.ExitedAt = &code, created
		}
		if display != "" {
			m.DisplayName = &display
		}
		ss := []layout.Session{{ID: id, Meta: m, Status: st, Pid: code, Damaged: damaged}}
		if got, want := written(t, ss), marshalled(t, ss); got != want {
			t.Fatalf("WriteJSON wrote\n%s\njson.MarshalIndent writes\n%s", got, want)
		}
		var back []Entry
		if err := json.Unmarshal([]byte(written(t, ss)), &back); err != nil || len(back) != 1 {
			t.Fatalf("WriteJSON's output does not read back: %v", err)
		}
	})
}
