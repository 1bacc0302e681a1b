package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// Records and event logs exactly as the newest original writes them (its
// src/server.ts writeMetadata and src/events.ts): every field it writes,
// its zero values included ("ephemeral":false on every record), and every
// event type it appends. Passed through our writers (tag, rename,
// metadata patch, state, gc, restart), each keeps every field it does not
// mean to change, and the event log's lines stay as they were.

// upstreamRecord is a record of an ended session kept with keep=true, in
// the original's field order, with a field from a version newer still.
func upstreamRecord(cwd string, exactEnv bool) map[string]any {
	rec := map[string]any{
		"generation": "0123456789abcdef0123456789abcdef",
		"daemonPid":  deadPid(),
		"recovery": map[string]any{
			"protocol": 1, "secret": strings.Repeat("ab", 32), "processStartToken": "linux:123456",
			"launchIdentity": strings.Repeat("cd", 32), "rootDevice": 2049, "rootInode": 131073,
			"recoveryDirDevice": 2049, "recoveryDirInode": 131074, "metadataRevision": strings.Repeat("ef", 32),
		},
		"command":        "/bin/sh",
		"args":           []any{"-c", `echo "up-${UPSHAPE:-none}-${KEEPME:-gone}"; exec sleep 60`},
		"displayCommand": `sh -c echo "up-${UPSHAPE:-none}"; exec sleep 60`,
		"cwd":            cwd,
		"rows":           31,
		"cols":           97,
		"ephemeral":      false,
		"createdAt":      "2026-08-01T10:00:00.000Z",
		"exitCode":       0,
		"exitedAt":       time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"lastLines":      []any{"up-shaped"},
		"tags":           map[string]any{"keep": "true", "role": "worker"},
		"displayName":    "shaped",
		"lastAttachAt":   "2026-08-01T10:05:00.000Z",
		"lastOutputAt":   "2026-08-01T10:06:00.000Z",
		"futureField":    map[string]any{"nested": []any{1, "two", nil}},
	}
	if exactEnv {
		rec["env"] = map[string]any{"PATH": "/usr/bin:/bin", "UPSHAPE": "exact"}
	} else {
		rec["isolateEnv"] = true
		rec["extraEnv"] = map[string]any{"UPSHAPE": "extra"}
		rec["unsetEnv"] = []any{"KEEPME"}
	}
	return rec
}

// deadPid is the pid of a process that has ended.
func deadPid() int {
	c := exec.Command("true")
	c.Run()
	return c.Process.Pid
}

// upstreamEvents is one event of every type the original appends, in its
// shape.
func upstreamEvents(id string) []string {
	ts := `"ts":"2026-08-01T10:00:00.000Z"`
	s := `{"session":"` + id + `",`
	return []string{
		s + `"type":"session_start",` + ts + `,"tags":{"keep":"true"}}`,
		s + `"type":"bell",` + ts + `}`,
		s + `"type":"title_change",` + ts + `,"value":"vim"}`,
		s + `"type":"notification",` + ts + `,"title":"t","body":"b","source":"osc777"}`,
		s + `"type":"focus_request",` + ts + `}`,
		s + `"type":"cursor_visible",` + ts + `}`,
		s + `"type":"session_exec",` + ts + `,"previousCommand":"sh","command":"vim x"}`,
		s + `"type":"session_respawn",` + ts + `}`,
		s + `"type":"session_abandoned",` + ts + `,"reason":"idle","idleDays":3}`,
		s + `"type":"session_flapping",` + ts + `,"counter":3,"limit":3,"window":60}`,
		s + `"type":"session_descendants_survived",` + ts + `,"data":{"pids":[4242]}}`,
		s + `"type":"display_name_change",` + ts + `,"previous":null,"value":"shaped"}`,
		s + `"type":"tags_change",` + ts + `,"previous":{},"value":{"keep":"true"}}`,
		s + `"type":"metadata_change",` + ts + `,"previous":{"displayName":null,"tags":{"role":null}},"value":{"displayName":"shaped","tags":{"role":"worker"}}}`,
		s + `"type":"user.deploy",` + ts + `,"data":{"v":1},"text":"shipped"}`,
		s + `"type":"session_exit",` + ts + `,"exitCode":137,"signal":9}`,
	}
}

func decodeRecord(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("record %s: %v", b, err)
	}
	return m
}

// sameExcept fails unless got has every field of want, with its value,
// except the fields in changed (which the writer means to change).
func sameExcept(t *testing.T, what string, got, want map[string]any, changed ...string) {
	t.Helper()
	for k, v := range want {
		if contains(changed, k) {
			continue
		}
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, v) {
			t.Errorf("%s: field %q is %v (present %v), want %v", what, k, g, ok, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !contains(changed, k) {
			t.Errorf("%s: field %q appeared", what, k)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestUpstreamShapedRecordsPassThroughOurWriters(t *testing.T) {
	for _, exactEnv := range []bool{false, true} {
		t.Run(fmt.Sprintf("exactEnv=%v", exactEnv), func(t *testing.T) {
			root := testutil.Root(t)
			id := "shaped"
			p := layout.At(root).Paths(id)
			rec := upstreamRecord(t.TempDir(), exactEnv)
			b, err := json.MarshalIndent(rec, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p.Meta(), b, 0o600); err != nil {
				t.Fatal(err)
			}
			events := strings.Join(upstreamEvents(id), "\n") + "\n"
			if err := os.WriteFile(p.Events(), []byte(events), 0o600); err != nil {
				t.Fatal(err)
			}
			want := decodeRecord(t, b)

			// Our readers: the record is an exited session, and the
			// event log reads back line for line.
			if r := testutil.MustRun(t, root, "list", "--json"); !strings.Contains(r.Stdout, `"status": "exited"`) {
				t.Fatalf("list --json: %s; want the session, exited", r.Stdout)
			}
			if r := testutil.MustRun(t, root, "events", "--recent", "--json", id); r.Stdout != events {
				t.Errorf("events --recent --json:\n%s\nwant the original's lines:\n%s", r.Stdout, events)
			}

			check := func(what string, changed ...string) map[string]any {
				t.Helper()
				got := decodeRecord(t, readRaw(t, p.Meta()))
				sameExcept(t, what, got, want, changed...)
				return got
			}
			testutil.MustRun(t, root, "tag", id, "extra=1")
			got := check("tag", "tags")
			if !reflect.DeepEqual(got["tags"], map[string]any{"keep": "true", "role": "worker", "extra": "1"}) {
				t.Errorf("tag: tags %v", got["tags"])
			}
			testutil.MustRun(t, root, "tag", id, "--rm", "extra")
			check("tag --rm")
			testutil.MustRun(t, root, "rename", id, "renamed")
			check("rename", "displayName")
			testutil.MustRun(t, root, "rename", id, "shaped")
			check("rename back")
			patch := testutil.Command(t, root, "", "metadata", "patch", "--id", id)
			patch.Stdin = strings.NewReader(`{"tags":{"role":null}}`)
			if r := testutil.RunCmd(t, patch); r.Code != 0 {
				t.Fatalf("metadata patch: %+v", r)
			}
			check("metadata patch", "tags")
			patch = testutil.Command(t, root, "", "metadata", "patch", "--id", id)
			patch.Stdin = strings.NewReader(`{"tags":{"role":"worker"}}`)
			if r := testutil.RunCmd(t, patch); r.Code != 0 {
				t.Fatalf("metadata patch: %+v", r)
			}
			check("metadata patch back")
			testutil.MustRun(t, root, "state", "set", id, "phase", `"build"`)
			check("state set", "state")
			testutil.MustRun(t, root, "state", "delete", id, "phase")
			check("state delete", "state")
			testutil.MustRun(t, root, "gc")
			check("gc (kept)", "state")

			// Appends leave the original's lines as they were.
			log := readRaw(t, p.Events())
			if !bytes.HasPrefix(log, []byte(events)) {
				t.Errorf("the event log no longer starts with the original's lines:\n%s", log)
			}
			for _, typ := range []string{"tags_change", "display_name_change", "metadata_change", "state.set", "state.delete"} {
				if !bytes.Contains(log[len(events):], []byte(`"type":"`+typ+`"`)) {
					t.Errorf("no %s appended after the original's lines:\n%s", typ, log[len(events):])
				}
			}

			// A restart relaunches from the original's launch fields.
			restart := testutil.Command(t, root, "", "restart", "-y", id)
			restart.Env = append(restart.Env, "KEEPME=here", "UPSHAPE=ambient")
			if r := testutil.RunCmd(t, restart); r.Code != 0 {
				t.Fatalf("restart: %+v", r)
			}
			testutil.WaitFor(t, 15*time.Second, "the restarted session's output", func() bool {
				return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, "up-")
			})
			got = decodeRecord(t, readRaw(t, p.Meta()))
			launch := []string{"command", "args", "displayCommand", "cwd", "rows", "cols", "isolateEnv", "extraEnv", "unsetEnv", "env", "displayName"}
			for _, k := range launch {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("restart: %q is %v, want the original's %v", k, got[k], want[k])
				}
			}
			if e, _ := got["ephemeral"].(bool); e {
				t.Errorf("restart: ephemeral %v, want false", got["ephemeral"])
			}
			if g, _ := got["tags"].(map[string]any); g["keep"] != "true" || g["role"] != "worker" {
				t.Errorf("restart: tags %v, want the original's", got["tags"])
			}
			wantOut := "up-extra-gone" // isolated, extraEnv set, KEEPME unset
			if exactEnv {
				wantOut = "up-exact-gone"
			}
			if scr := testutil.Run(t, root, "peek", "--plain", id).Stdout; !strings.Contains(scr, wantOut) {
				t.Errorf("restarted session shows %q, want %q", scr, wantOut)
			}
			testutil.Run(t, root, "kill", id)
		})
	}
}

func readRaw(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
