package layout

import (
	"encoding/json"
	"errors"
	"github.com/ptyorg/pty/internal/jsonx"
	"os"
	"strings"
	"testing"
)

func newSession(t *testing.T, m *Metadata) (root, id string) {
	t.Helper()
	root, id = t.TempDir(), "s1"
	if m == nil {
		m = &Metadata{Command: "/bin/sh", CreatedAt: Now()}
	}
	if err := writeRecord(root, id, m); err != nil {
		t.Fatal(err)
	}
	return root, id
}

func events(t *testing.T, root, id string) []Event {
	t.Helper()
	evs, err := readEvents(root, id)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func fieldJSON(t *testing.T, e Event, k string) string {
	t.Helper()
	b, err := json.Marshal(e.Fields[k])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetTags(t *testing.T) {
	root, id := newSession(t, &Metadata{Command: "/bin/sh", CreatedAt: Now(), Tags: map[string]string{"a": "1"}})

	changed, m, err := setTags(root, id, map[string]string{"b": "x=y", "c": "3"}, []string{"a", "c"})
	if err != nil || !changed {
		t.Fatalf("SetTags: changed=%v err=%v", changed, err)
	}
	if got := strings.Join(SortedTags(m.Tags), " "); got != "b=x=y" {
		t.Fatalf("tags = %q, want b=x=y (sets before removals)", got)
	}
	evs := events(t, root, id)
	if len(evs) != 1 || evs[0].Type != EventTagsChange {
		t.Fatalf("events = %+v, want one tags_change", evs)
	}
	if p, v := fieldJSON(t, evs[0], "previous"), fieldJSON(t, evs[0], "value"); p != `{"a":"1"}` || v != `{"b":"x=y"}` {
		t.Fatalf("tags_change previous=%s value=%s", p, v)
	}

	// No-op: nothing written, no event.
	before := snapshot(t, root)
	changed, _, err = setTags(root, id, map[string]string{"b": "x=y"}, []string{"zz"})
	if err != nil || changed {
		t.Fatalf("no-op: changed=%v err=%v", changed, err)
	}
	if snapshot(t, root) != before {
		t.Fatal("a no-op tag change touched the root")
	}

	// Removing the last tag removes the field.
	if _, _, err := setTags(root, id, nil, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pathsFor(root, id).Meta())
	if strings.Contains(string(b), `"tags"`) {
		t.Fatalf("empty tags kept in metadata:\n%s", b)
	}
	if evs := events(t, root, id); fieldJSON(t, evs[1], "value") != `{}` {
		t.Fatalf("last tags_change value = %s, want {}", fieldJSON(t, evs[1], "value"))
	}

	// Bad input is refused before anything is written.
	before = snapshot(t, root)
	for _, c := range []struct {
		set map[string]string
		rm  []string
	}{
		{map[string]string{"": "v"}, nil},
		{map[string]string{"ok": "v"}, []string{""}},
		{map[string]string{"k": "line\nbreak"}, nil},
		{map[string]string{"a=b": "v"}, nil},
	} {
		if _, _, err := setTags(root, id, c.set, c.rm); err == nil {
			t.Errorf("setTags(%v, %v) accepted bad input", c.set, c.rm)
		}
	}
	if snapshot(t, root) != before {
		t.Fatal("refused input changed the root")
	}
	if _, _, err := setTags(root, "missing", map[string]string{"a": "b"}, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
}

func TestSetTagsIf(t *testing.T) {
	root, id := newSession(t, &Metadata{Command: "/bin/sh", CreatedAt: Now(), Tags: map[string]string{"role": "db"}})
	_, _, err := setTagsIf(root, id, func(tags map[string]string) bool { return tags["role"] == "web" }, map[string]string{"x": "1"}, nil)
	if !errors.Is(err, ErrConditionFailed) {
		t.Fatalf("err = %v, want ErrConditionFailed", err)
	}
	if len(events(t, root, id)) != 0 {
		t.Fatal("failed condition appended an event")
	}
}

func TestSetDisplayName(t *testing.T) {
	root, id := newSession(t, nil)
	name := "web"
	if ch, m, err := setDisplayName(root, id, &name); err != nil || !ch || *m.DisplayName != "web" {
		t.Fatalf("set: %v %v", ch, err)
	}
	if ch, _, err := setDisplayName(root, id, &name); err != nil || ch {
		t.Fatalf("same name: changed=%v err=%v", ch, err)
	}
	if ch, m, err := setDisplayName(root, id, nil); err != nil || !ch || m.DisplayName != nil {
		t.Fatalf("clear: %v %v", ch, err)
	}
	bad := " padded"
	if _, _, err := setDisplayName(root, id, &bad); err == nil {
		t.Fatal("accepted a padded name")
	}
	evs := events(t, root, id)
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2", len(evs))
	}
	b0, _ := json.Marshal(evs[0].Fields)
	b1, _ := json.Marshal(evs[1].Fields)
	if string(b0) != `{"previous":null,"value":"web"}` || string(b1) != `{"previous":"web","value":null}` {
		t.Fatalf("display_name_change payloads: %s %s", b0, b1)
	}
}

func TestState(t *testing.T) {
	root, id := newSession(t, nil)
	if ch, _, err := stateSet(root, id, "k", json.RawMessage(`{ "a" : [1, 2] }`)); err != nil || !ch {
		t.Fatalf("set: %v %v", ch, err)
	}
	// The same value in other spacing is no change.
	if ch, _, err := stateSet(root, id, "k", json.RawMessage(`{"a":[1,2]}`)); err != nil || ch {
		t.Fatalf("same value: changed=%v err=%v", ch, err)
	}
	m, _ := readMetadata(root, id)
	if got, _ := jsonx.Compact("", m.State["k"]); string(got) != `{"a":[1,2]}` {
		t.Fatalf("state k = %s", got)
	}
	if _, _, err := stateSet(root, id, "bad", json.RawMessage(`{nope`)); err == nil {
		t.Fatal("accepted invalid JSON")
	}
	big := json.RawMessage(`"` + strings.Repeat("x", StateEventValueMax) + `"`)
	if _, _, err := stateSet(root, id, "big", big); err != nil {
		t.Fatal(err)
	}
	if ch, _, err := stateDelete(root, id, "k"); err != nil || !ch {
		t.Fatalf("delete: %v %v", ch, err)
	}
	if ch, _, err := stateDelete(root, id, "k"); err != nil || ch {
		t.Fatalf("delete missing: changed=%v err=%v", ch, err)
	}
	evs := events(t, root, id)
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3: %+v", len(evs), evs)
	}
	if evs[0].Type != EventStateSet || fieldJSON(t, evs[0], "value") != `{"a":[1,2]}` {
		t.Fatalf("state.set event: %+v", evs[0])
	}
	if _, has := evs[1].Fields["value"]; has || evs[1].Fields["valueBytes"] != float64(len(big)) {
		t.Fatalf("big state.set event should carry valueBytes only: %+v", evs[1].Fields)
	}
	if evs[2].Type != EventStateDelete || evs[2].Fields["key"] != "k" {
		t.Fatalf("state.delete event: %+v", evs[2])
	}
}

func TestPatchMetadata(t *testing.T) {
	root, id := newSession(t, &Metadata{Command: "/bin/sh", CreatedAt: Now(), Tags: map[string]string{"keep": "1", "old": "x", "same": "s"}})
	p, err := ParseMetadataPatch([]byte(`{"displayName":"Worker","tags":{"old":null,"new":"n","same":"s","absent":null}}`))
	if err != nil {
		t.Fatal(err)
	}
	ch, m, err := patchMetadata(root, id, p)
	if err != nil || !ch {
		t.Fatalf("patch: %v %v", ch, err)
	}
	if got := strings.Join(SortedTags(m.Tags), " "); got != "keep=1 new=n same=s" || *m.DisplayName != "Worker" {
		t.Fatalf("after patch: tags %q name %v", got, *m.DisplayName)
	}
	evs := events(t, root, id)
	if len(evs) != 1 || evs[0].Type != EventMetadataChange {
		t.Fatalf("events: %+v", evs)
	}
	if p, v := fieldJSON(t, evs[0], "previous"), fieldJSON(t, evs[0], "value"); p != `{"displayName":null,"tags":{"new":null,"old":"x"}}` ||
		v != `{"displayName":"Worker","tags":{"new":"n","old":null}}` {
		t.Fatalf("metadata_change previous=%s value=%s", p, v)
	}
	if ch, _, err := patchMetadata(root, id, p); err != nil || ch {
		t.Fatalf("repeat patch: changed=%v err=%v", ch, err)
	}
	for _, bad := range []string{``, `[]`, `{"displayName":5}`, `{"tags":{"a":1}}`, `{"tags":[]}`, `{"name":"x"}`, `{} {}`, `{"tags":{"":"v"}}`, `{"displayName":""}`} {
		if _, err := ParseMetadataPatch([]byte(bad)); err == nil {
			t.Errorf("ParseMetadataPatch(%q) accepted bad input", bad)
		}
	}
}

func TestEmitUser(t *testing.T) {
	root, id := newSession(t, nil)
	text := "done"
	if err := emitUser(root, id, "user.build-done", json.RawMessage(`{"n": 1}`), &text); err != nil {
		t.Fatal(err)
	}
	evs := events(t, root, id)
	if len(evs) != 1 || evs[0].Type != "user.build-done" || fieldJSON(t, evs[0], "data") != `{"n":1}` || evs[0].Fields["text"] != "done" {
		t.Fatalf("events: %+v", evs)
	}
	for _, typ := range []string{"bell", "user.", "user.a b", "session_exit", "users.x"} {
		if err := emitUser(root, id, typ, nil, nil); err == nil {
			t.Errorf("EmitUser accepted type %q", typ)
		}
	}
	if err := emitUser(root, "nope", "user.x", nil, nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing session: %v", err)
	}
	if _, err := os.Stat(pathsFor(root, "nope").Events()); !os.IsNotExist(err) {
		t.Fatal("emit to a missing session created a log")
	}
}

func TestEventRetentionKeepsNewestInOrder(t *testing.T) {
	root, id := newSession(t, nil)
	for i := 0; i < 2500; i++ {
		if err := appendEventsTo(root, id, NewEvent(id, "user.n", "i", i)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(pathsFor(root, id).Events())
		if n := strings.Count(string(b), "\n"); n > EventsMaxLines {
			t.Fatalf("after append %d the log has %d lines", i, n)
		}
	}
	evs := events(t, root, id)
	if last := evs[len(evs)-1].Fields["i"]; last != float64(2499) {
		t.Fatalf("newest event i=%v", last)
	}
	for j := 1; j < len(evs); j++ {
		if evs[j].Fields["i"].(float64) != evs[j-1].Fields["i"].(float64)+1 {
			t.Fatalf("gap in retained events at %d", j)
		}
	}
}
