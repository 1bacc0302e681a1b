package layout

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestStateKeyCountIsBounded(t *testing.T) {
	m := &Metadata{Command: "/bin/sh", CreatedAt: Now(), State: map[string]json.RawMessage{}}
	for i := range MaxStateKeys {
		m.State["k"+strconv.Itoa(i)] = json.RawMessage("1")
	}
	root, id := newSession(t, m)
	if _, _, err := stateSet(root, id, "one-more", json.RawMessage("1")); err == nil || !strings.Contains(err.Error(), "at most 1024") {
		t.Fatalf("key %d: %v", MaxStateKeys+1, err)
	}
	// Changing a key that exists is still fine.
	if _, _, err := stateSet(root, id, "k0", json.RawMessage("2")); err != nil {
		t.Fatal(err)
	}
}

func TestJSONDepth(t *testing.T) {
	for src, want := range map[string]int{`1`: 0, `[]`: 1, `{"a":[1,{"b":"[[["}]}`: 3, `"\\"`: 0, `["\"["]`: 1} {
		if got := jsonDepth([]byte(src)); got != want {
			t.Errorf("jsonDepth(%s) = %d, want %d", src, got, want)
		}
	}
}

func TestKeepNewest(t *testing.T) {
	line := func(n int) string { return strings.Repeat("x", n-1) + "\n" }
	// Bounded by lines.
	var b strings.Builder
	for range EventsMaxLines + 10 {
		b.WriteString(line(10))
	}
	if got := keepNewest([]byte(b.String())); strings.Count(string(got), "\n") != EventsKeepLines {
		t.Fatalf("kept %d lines", strings.Count(string(got), "\n"))
	}
	// Bounded by bytes: 300 KiB lines, keep at most 1 MiB.
	big := line(300 << 10)
	got := keepNewest([]byte(strings.Repeat(big, 10) + "partial"))
	if len(got) != 3*len(big) {
		t.Fatalf("kept %d bytes, want 3 lines of %d", len(got), len(big))
	}
	// The newest line stays however large.
	huge := line(EventsKeepBytes + 10)
	if got := keepNewest([]byte(big + huge)); string(got) != huge {
		t.Fatalf("kept %d bytes, want the newest line", len(got))
	}
}

func TestOversizedRecordIsDamagedNotRead(t *testing.T) {
	root, id := newSession(t, nil)
	if err := os.Truncate(pathsFor(root, id).Meta(), MaxRecordBytes+1); err != nil {
		t.Fatal(err)
	}
	s, err := load(root, id)
	if err != nil || !strings.Contains(s.Damaged, "larger than 128 MiB") {
		t.Fatalf("Load: %+v, %v", s, err)
	}
	ss, err := listFast(root)
	if err != nil || len(ss) != 1 || ss[0].Damaged != s.Damaged {
		t.Fatalf("listFast: %+v, %v", ss, err)
	}
}
