package activity

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// activityOf is the session's activity as pty list --json reports it.
func activityOf(t *testing.T, root, id string) []string {
	t.Helper()
	r := testutil.MustRun(t, root, "list", "--json")
	var es []struct {
		Name     string   `json:"name"`
		Activity []string `json:"activity"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	for _, e := range es {
		if e.Name == id {
			return e.Activity
		}
	}
	t.Fatalf("list --json has no session %s:\n%s", id, r.Stdout)
	return nil
}

// listLine is the session's line of pty list.
func listLine(t *testing.T, root, id string) string {
	t.Helper()
	out := testutil.MustRun(t, root, "list").Stdout
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == id {
			return l
		}
	}
	t.Fatalf("pty list has no line for %s:\n%s", id, out)
	return ""
}

func waitActivity(t *testing.T, root, id string, want ...string) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, id+"'s activity to be "+strings.Join(want, ","), func() (bool, string) {
		got := activityOf(t, root, id)
		return slices.Equal(got, want), strings.Join(got, ",")
	})
}

func meta(t *testing.T, root, id string) *layout.Metadata {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// echo is a session that prints its first output, then for each line it
// reads a bell and the line in <>: what it rings is up to the test.
func echo(first string) []string {
	return []string{"sh", "-c", `printf '` + first + `'; echo ready; while read l; do printf '\a<%s>\n' "$l"; done`}
}

// TestActivityMarkers: a bell or a notification (OSC 9, OSC 777;notify,
// OSC 99) from a detached session is shown in pty list, its --json and
// the picker; a BEL that ends an OSC string is no bell; an attach clears
// the marker, and a bell while attached leaves none.
func TestActivityMarkers(t *testing.T) {
	root := testutil.Root(t)
	for _, s := range []struct{ id, first string }{
		{"bel", `\a`},
		{"osc9", `\033]9;build done\007`},
		{"osc777", `\033]777;notify;Build;it passed\033\\`},
		{"osc99", `\033]99;;agent waits\033\\`},
		{"both", `\a\033]9;hi\007`},
		{"quiet", `\033]0;a title\007\033]8;;http://x\007link\033]8;;\007`},
	} {
		testutil.MustRun(t, root, append([]string{"run", "-d", "--id", s.id, "--"}, echo(s.first)...)...)
	}
	for id, want := range map[string][]string{
		"bel": {"bell"}, "osc9": {"notified"}, "osc777": {"notified"}, "osc99": {"notified"}, "both": {"bell", "notified"},
	} {
		waitActivity(t, root, id, want...)
		text := "[" + strings.Join(want, "] [") + "]"
		if l := listLine(t, root, id); !strings.HasSuffix(l, "  "+text) {
			t.Errorf("pty list shows %s as %q, want it to end in %q", id, l, text)
		}
	}
	testutil.WaitFor(t, 10*time.Second, "quiet's output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "quiet").Stdout, "ready")
	})
	if a := activityOf(t, root, "quiet"); a != nil {
		t.Errorf("a title and a link, each ended by BEL, marked the session %v", a)
	}
	if l := listLine(t, root, "quiet"); strings.Contains(l, "[") {
		t.Errorf("pty list shows a marker for quiet: %q", l)
	}

	// The picker shows them on the sessions' rows.
	p := testutil.StartUserTmux(t, root, 20, 140, nil)
	screen := p.WaitScreen("the picker's rows with their markers", func(s string) bool {
		return strings.Contains(s, "quiet") && strings.Contains(s, "[bell] [notified]")
	})
	for _, l := range strings.Split(screen, "\n") {
		for id, want := range map[string]string{"bel ": "[bell]", "osc9 ": "[notified]", "osc99 ": "[notified]", "quiet ": ""} {
			if !strings.Contains(l, " "+id) {
				continue
			}
			if want == "" && strings.Contains(l, "[") || want != "" && !strings.HasSuffix(strings.TrimSpace(l), want) {
				t.Errorf("the picker's row of %s is %q, want it to end in %q", strings.TrimSpace(id), l, want)
			}
		}
	}
	p.Keys("Escape")

	// Attaching clears it, and a bell while attached is seen.
	u := testutil.StartUserTmux(t, root, 20, 80, nil, "attach", "bel")
	u.WaitText("ready")
	waitActivity(t, root, "bel")
	if meta(t, root, "bel").LastAttachAt == "" {
		t.Error("attach did not record lastAttachAt")
	}
	testutil.MustRun(t, root, "send", "bel", "while-attached\r")
	u.WaitText("<while-attached>")
	// The bell's output reached the client, so the daemon had seen the bell.
	if a := activityOf(t, root, "bel"); a != nil {
		t.Errorf("a bell while attached marked the session %v", a)
	}
	u.Keys("C-\\")
	u.WaitText("[detached]")
	// The client's connection closes after [detached]: a bell from then
	// on is missed again.
	testutil.WaitFor(t, 10*time.Second, "a bell after the detach to mark the session", func() bool {
		testutil.MustRun(t, root, "send", "bel", "after-detach\r")
		return slices.Equal(activityOf(t, root, "bel"), []string{"bell"})
	})
}

// TestReadOnlyAttachClears: pty attach -R and pty peek -f are someone
// watching: they clear the markers and record lastAttachAt, as an attach
// does; a one-shot pty peek does neither.
func TestReadOnlyAttachClears(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, append([]string{"run", "-d", "--id", "ro", "--"}, echo(`\a`)...)...)
	waitActivity(t, root, "ro", "bell")
	// A one-shot peek is a look, often a script's: it clears nothing.
	testutil.MustRun(t, root, "peek", "ro")
	if a := activityOf(t, root, "ro"); !slices.Equal(a, []string{"bell"}) {
		t.Errorf("after pty peek the activity is %v, want [bell]", a)
	}
	if at := meta(t, root, "ro").LastAttachAt; at != "" {
		t.Fatalf("lastAttachAt is %q before any attach", at)
	}
	u := testutil.StartUserTmux(t, root, 20, 80, nil, "attach", "-R", "ro")
	u.WaitText("ready")
	waitActivity(t, root, "ro")
	testutil.WaitFor(t, 5*time.Second, "lastAttachAt after attach -R", func() bool {
		return meta(t, root, "ro").LastAttachAt != ""
	})
	testutil.MustRun(t, root, "send", "ro", "while-watched\r")
	u.WaitText("<while-watched>")
	if a := activityOf(t, root, "ro"); a != nil {
		t.Errorf("a bell while watched read-only marked the session %v", a)
	}

	testutil.MustRun(t, root, append([]string{"run", "-d", "--id", "pf", "--"}, echo(`\a`)...)...)
	waitActivity(t, root, "pf", "bell")
	f := testutil.StartUserTmux(t, root, 20, 80, nil, "peek", "-f", "pf")
	f.WaitText("ready")
	waitActivity(t, root, "pf")
	if meta(t, root, "pf").LastAttachAt == "" {
		t.Error("peek -f did not record lastAttachAt")
	}
}

// TestBellFloodWritesOnce: a million bells from a detached session, in 20
// bursts over two seconds or more, set the marker with one write of the
// record, not one per bell nor one per burst. The record's
// writes are counted as the renames that replace <id>.json; the others
// allowed are lastOutputAt's (the echo of the line that starts the flood,
// then every 5 seconds while output flows).
func TestBellFloodWritesOnce(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "flood", "--", "sh", "-c",
		`echo ready; read go; i=0; while [ $i -lt 20 ]; do head -c 50000 /dev/zero | tr '\0' '\a'; sleep 0.1; i=$((i+1)); done; echo flood-done; exec cat`)
	testutil.WaitFor(t, 10*time.Second, "the session to wait", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "flood").Stdout, "ready")
	})
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(root); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(root, "flood"+layout.SuffixMeta)
	sentinel := filepath.Join(root, "sentinel")
	// inotify reports in order: once the sentinel's creation is read,
	// every write of the record before it has been counted.
	var writes atomic.Int32
	seen := make(chan struct{})
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				switch {
				case ev.Name == rec && ev.Has(fsnotify.Create):
					writes.Add(1)
				case ev.Name == sentinel && ev.Has(fsnotify.Create):
					close(seen)
				}
			case err, ok := <-w.Errors:
				if ok {
					t.Errorf("watching the root: %v", err) // an overflow would hide writes
				}
				return
			}
		}
	}()
	start := time.Now()
	testutil.MustRun(t, root, "send", "flood", "go\r")
	testutil.WaitFor(t, 60*time.Second, "the flood to end", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "flood").Stdout, "flood-done")
	})
	took := time.Since(start)
	waitActivity(t, root, "flood", "bell")
	if err := os.WriteFile(sentinel, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the sentinel's creation was not reported within 10s")
	}
	os.Remove(sentinel)
	n := int(writes.Load())
	allowed := 4 + int(took/(5*time.Second))
	if n > allowed || n == 0 {
		t.Errorf("the flood of %v wrote the record %d times, want 1 to %d", took.Round(time.Millisecond), n, allowed)
	}
	t.Logf("a flood of a million bells in %v: %d writes of the record", took.Round(time.Millisecond), n)
}
