package state

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

func start(t *testing.T, root, id string, extra ...string) {
	t.Helper()
	args := append([]string{"run", "-d", "--id", id, "--tag", "keep=true"}, extra...)
	testutil.MustRun(t, root, append(args, "--", "sleep", "1000")...)
}

func files(t *testing.T, root, id string) string {
	t.Helper()
	p := layout.At(root).Paths(id)
	m, _ := os.ReadFile(p.Meta())
	e, _ := os.ReadFile(p.Events())
	return string(m) + "\x00" + string(e)
}

// inside runs pty as if from inside session id.
func inside(t *testing.T, root, id, stdin string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(cmd.Env, "PTY_SESSION="+id)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	return testutil.RunCmd(t, cmd)
}

func eventsOf(t *testing.T, root, id, typ string) []layout.Event {
	t.Helper()
	evs, _ := layout.At(root).Events(id)
	var out []layout.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestState(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	start(t, root, "other")

	testutil.MustRun(t, root, "state", "set", "s", "cfg", `{"port": 8080, "tags": ["a"]}`)
	if r := testutil.MustRun(t, root, "state", "get", "s", "cfg"); r.Stdout != `{"port":8080,"tags":["a"]}`+"\n" {
		t.Fatalf("get: %q", r.Stdout)
	}
	// JSON from stdin when the value is left out.
	cmd := testutil.Command(t, root, "", "state", "set", "s", "phase")
	cmd.Stdin = strings.NewReader("\"ready\"\n")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("set from stdin: %s", r.Stderr)
	}
	if r := testutil.MustRun(t, root, "state", "keys", "s"); r.Stdout != "cfg\nphase\n" {
		t.Fatalf("keys: %q", r.Stdout)
	}
	var bag map[string]any
	r := testutil.MustRun(t, root, "state", "get", "s")
	if err := json.Unmarshal([]byte(r.Stdout), &bag); err != nil || bag["phase"] != "ready" {
		t.Fatalf("get bag: %q", r.Stdout)
	}

	// Inside a session REF is left out; --session names one anywhere.
	if r := inside(t, root, "s", "", "state", "get", "phase"); r.Stdout != "\"ready\"\n" {
		t.Fatalf("inside get: %q %q", r.Stdout, r.Stderr)
	}
	if r := inside(t, root, "s", "", "state", "set", "n", "-5"); r.Code == 0 {
		t.Fatalf("a negative number before -- was taken as a value: %q", r.Stdout)
	}
	if r := inside(t, root, "s", "", "state", "set", "n", "--", "-5"); r.Code != 0 {
		t.Fatalf("inside set: %s", r.Stderr)
	}
	if r := inside(t, root, "s", "", "state", "get", "other", "n"); r.Code != 1 || !strings.Contains(r.Stderr, `"n" is not set`) {
		t.Fatalf("inside get REF KEY: code %d %q", r.Code, r.Stderr)
	}
	if r := inside(t, root, "s", "", "state", "keys", "--session", "other"); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("--session: %q %q", r.Stdout, r.Stderr)
	}

	// Deleting is idempotent and only a real delete emits.
	testutil.MustRun(t, root, "state", "delete", "s", "n")
	testutil.MustRun(t, root, "state", "delete", "s", "n")
	if n := len(eventsOf(t, root, "s", layout.EventStateDelete)); n != 1 {
		t.Fatalf("%d state.delete events, want 1", n)
	}
	// Setting the same value (in other spacing) changes nothing.
	before := files(t, root, "s")
	testutil.MustRun(t, root, "state", "set", "s", "cfg", `{"port":8080,"tags":["a"]}`)
	if files(t, root, "s") != before {
		t.Fatal("setting an unchanged value wrote something")
	}

	// Bad input is refused with nothing written.
	for _, args := range [][]string{
		{"state", "set", "s", "k", "{not json"},
		{"state", "set", "s", "k", "bare words"},
		{"state", "set", "s", "", "1"},
		{"state", "get", "s", "missing"},
		{"state", "get"},
		{"state", "frobnicate", "s"},
		{"state", "set", "nope", "k", "1"},
	} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || r.Stderr == "" || strings.Contains(strings.TrimSpace(r.Stderr), "\n") {
			t.Errorf("pty %q: code %d stderr %q, want exit 1 and one line", args, r.Code, r.Stderr)
		}
	}
	if files(t, root, "s") != before {
		t.Fatal("refused state commands wrote something")
	}

	sets := eventsOf(t, root, "s", layout.EventStateSet)
	if len(sets) != 3 {
		t.Fatalf("%d state.set events, want 3", len(sets))
	}
	if v, _ := json.Marshal(sets[0].Fields["value"]); sets[0].Fields["key"] != "cfg" || string(v) != `{"port":8080,"tags":["a"]}` {
		t.Fatalf("state.set event: %+v", sets[0].Fields)
	}
}

func TestStateSetOneMegabyte(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	big := `"` + strings.Repeat("x", 1<<20) + `"`
	cmd := testutil.Command(t, root, "", "state", "set", "s", "blob")
	cmd.Stdin = strings.NewReader(big)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("1 MB set: %s", r.Stderr)
	}
	r := testutil.MustRun(t, root, "state", "get", "s", "blob")
	if strings.TrimSpace(r.Stdout) != big {
		t.Fatalf("1 MB get returned %d bytes", len(r.Stdout))
	}
	sets := eventsOf(t, root, "s", layout.EventStateSet)
	if len(sets) != 1 {
		t.Fatalf("%d state.set events", len(sets))
	}
	if _, has := sets[0].Fields["value"]; has || sets[0].Fields["key"] != "blob" || sets[0].Fields["valueBytes"] != float64(len(big)) {
		t.Fatalf("a large value's event must carry key and valueBytes only: %v", sets[0].Fields["valueBytes"])
	}
	if fi, _ := os.Stat(layout.At(root).Paths("s").Events()); fi.Size() > 4096 {
		t.Fatalf("the event log grew to %d bytes", fi.Size())
	}
}

func TestRename(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s", "--no-display-name")

	if r := inside(t, root, "s", "", "rename", "API server"); r.Code != 0 {
		t.Fatalf("rename inside: %s", r.Stderr)
	}
	if r := testutil.MustRun(t, root, "rename", "--show", "s"); r.Stdout != "API server\n" {
		t.Fatalf("--show: %q", r.Stdout)
	}
	// The display name resolves as a reference.
	testutil.MustRun(t, root, "rename", "API server", "web")
	before := files(t, root, "s")
	testutil.MustRun(t, root, "rename", "s", "web")
	if files(t, root, "s") != before {
		t.Fatal("renaming to the current name wrote something")
	}
	for _, args := range [][]string{
		{"rename", "s", " padded"},
		{"rename", "s", "two\nlines"},
		{"rename", "s", strings.Repeat("n", 161)},
		{"rename", "only-a-name"}, // outside a session
		{"rename", "--show", "--clear", "s"},
		{"rename", "nope", "x"},
	} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || r.Stderr == "" || strings.Contains(strings.TrimSpace(r.Stderr), "\n") {
			t.Errorf("pty %q: code %d stderr %q, want exit 1 and one line", args, r.Code, r.Stderr)
		}
	}
	if files(t, root, "s") != before {
		t.Fatal("refused renames wrote something")
	}
	if r := inside(t, root, "s", "", "rename", "--clear"); r.Code != 0 {
		t.Fatalf("--clear inside: %s", r.Stderr)
	}
	if r := testutil.MustRun(t, root, "rename", "--show", "s"); r.Stdout != "" {
		t.Fatalf("--show after clear: %q", r.Stdout)
	}
	var payloads []string
	for _, e := range eventsOf(t, root, "s", layout.EventDisplayNameChange) {
		b, _ := json.Marshal(e.Fields)
		payloads = append(payloads, string(b))
	}
	want := `{"previous":null,"value":"API server"} {"previous":"API server","value":"web"} {"previous":"web","value":null}`
	if got := strings.Join(payloads, " "); got != want {
		t.Fatalf("display_name_change events:\n got %s\nwant %s", got, want)
	}
}

func TestMetadataPatch(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s", "--name", "Old", "--tag", "gone=1", "--tag", "same=s")

	patch := func(id, body string) testutil.Result {
		cmd := testutil.Command(t, root, "", "metadata", "patch", "--id", id)
		cmd.Stdin = strings.NewReader(body)
		return testutil.RunCmd(t, cmd)
	}
	r := patch("s", `{"displayName":"Worker","tags":{"role":"worker","gone":null,"same":"s"}}`)
	if r.Code != 0 {
		t.Fatalf("patch: %s", r.Stderr)
	}
	var out struct {
		Changed  bool
		Metadata layout.Metadata
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || !out.Changed || *out.Metadata.DisplayName != "Worker" ||
		strings.Join(layout.SortedTags(out.Metadata.Tags), " ") != "keep=true role=worker same=s" {
		t.Fatalf("patch output: %q (%v)", r.Stdout, err)
	}
	evs := eventsOf(t, root, "s", layout.EventMetadataChange)
	if len(evs) != 1 {
		t.Fatalf("%d metadata_change events", len(evs))
	}
	p, _ := json.Marshal(evs[0].Fields["previous"])
	v, _ := json.Marshal(evs[0].Fields["value"])
	if string(p) != `{"displayName":"Old","tags":{"gone":"1","role":null}}` || string(v) != `{"displayName":"Worker","tags":{"gone":null,"role":"worker"}}` {
		t.Fatalf("metadata_change previous=%s value=%s", p, v)
	}

	before := files(t, root, "s")
	if r := patch("s", `{"displayName":"Worker"}`); r.Code != 0 || !strings.HasPrefix(r.Stdout, `{"changed":false,`) {
		t.Fatalf("no-op patch: %q %q", r.Stdout, r.Stderr)
	}
	for _, body := range []string{``, `[]`, `{"displayName":1}`, `{"tags":{"a":2}}`, `{"name":"x"}`, `{"tags":{"":"v"}}`, `{} trailing`} {
		if r := patch("s", body); r.Code != 1 || r.Stdout != "" || r.Stderr == "" {
			t.Errorf("patch %q: code %d stdout %q stderr %q, want an error", body, r.Code, r.Stdout, r.Stderr)
		}
	}
	// Exact ids only: the display name is not resolved.
	if r := patch("Worker", `{"tags":{"x":"1"}}`); r.Code != 1 || !strings.Contains(r.Stderr, "not found") {
		t.Errorf("patch by display name: code %d stderr %q", r.Code, r.Stderr)
	}
	if files(t, root, "s") != before {
		t.Fatal("refused or empty patches wrote something")
	}
}
