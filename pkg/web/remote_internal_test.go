package web

import (
	"bytes"
	"strings"
	"testing"
)

// A host's output is taken line by line, a line past the bound left out
// whole, however it is split across writes.
func TestLineWriterBound(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(b []byte) { got = append(got, string(b)) }}
	long := strings.Repeat("x", MaxRemoteEventLine+1)
	for _, p := range []string{"a\nb", "c\n", long[:10], long[10:] + "\nd\n", "no newline"} {
		w.Write([]byte(p))
	}
	if strings.Join(got, "|") != "a|bc|d" {
		t.Fatalf("lines %q", got)
	}
}

// Events from the follow and from the reads of the recent ones overlap:
// each shows once, in the order of its time, the newest recentEvents.
func TestRemoteEventsMerge(t *testing.T) {
	ev := func(sec int, typ string) []byte {
		return []byte(`{"ts":"2026-01-02T03:04:` + string(rune('0'+sec/10)) + string(rune('0'+sec%10)) + `.000Z","type":"` + typ + `"}`)
	}
	var e remoteEvents
	if !e.add("s", [][]byte{ev(1, "user.a"), ev(3, "user.c")}) {
		t.Fatal("new events not added")
	}
	if e.add("s", [][]byte{ev(1, "user.a")}) {
		t.Fatal("a repeated event was added")
	}
	e.add("s", [][]byte{ev(2, "user.b"), []byte("not json")})
	var types []string
	for _, l := range e.lines {
		types = append(types, l.Event.Type)
	}
	if strings.Join(types, " ") != "user.a user.b user.c" {
		t.Fatalf("events %v", types)
	}
	var many [][]byte
	for i := range 60 {
		many = append(many, bytes.Replace(ev(i%60, "user.n"), []byte(`"user.n"`), []byte(`"user.n`+string(rune('A'+i%26))+string(rune('a'+i/26))+`"`), 1))
	}
	e.add("s", many)
	if len(e.lines) != recentEvents || len(e.formatted()) != recentEvents {
		t.Fatalf("%d events kept, want %d", len(e.lines), recentEvents)
	}
}
