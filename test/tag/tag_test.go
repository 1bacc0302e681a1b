package tag

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// start runs a real detached session that outlives its command's exit.
func start(t *testing.T, root, id string, tags ...string) {
	t.Helper()
	args := []string{"run", "-d", "--id", id, "--tag", "keep=true"}
	for _, tg := range tags {
		args = append(args, "--tag", tg)
	}
	testutil.MustRun(t, root, append(args, "--", "sleep", "1000")...)
}

// files returns a session's metadata and event log, to prove a refused
// command wrote nothing.
func files(t *testing.T, root, id string) string {
	t.Helper()
	p := layout.At(root).Paths(id)
	m, _ := os.ReadFile(p.Meta())
	e, _ := os.ReadFile(p.Events())
	return string(m) + "\x00" + string(e)
}

func tagEvents(t *testing.T, root, id string) []layout.Event {
	t.Helper()
	evs, err := layout.At(root).Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []layout.Event
	for _, e := range evs {
		if e.Type == layout.EventTagsChange {
			out = append(out, e)
		}
	}
	return out
}

func TestTagListSetRemove(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s", "role=web")

	if r := testutil.MustRun(t, root, "tag", "s"); r.Stdout != "  keep=true\n  role=web\n" {
		t.Fatalf("list: %q", r.Stdout)
	}
	// Sets before removals; the value is everything after the first '='.
	testutil.MustRun(t, root, "tag", "s", "url=http://x/?a=b", "tmp=1", "--rm", "role", "--rm", "tmp")
	if r := testutil.MustRun(t, root, "tag", "s"); r.Stdout != "  keep=true\n  url=http://x/?a=b\n" {
		t.Fatalf("after set/rm: %q", r.Stdout)
	}
	evs := tagEvents(t, root, "s")
	if len(evs) != 1 {
		t.Fatalf("%d tags_change events, want 1", len(evs))
	}
	prev, _ := json.Marshal(evs[0].Fields["previous"])
	val, _ := json.Marshal(evs[0].Fields["value"])
	if string(prev) != `{"keep":"true","role":"web"}` || string(val) != `{"keep":"true","url":"http://x/?a=b"}` {
		t.Fatalf("tags_change previous=%s value=%s", prev, val)
	}

	// A change that changes nothing writes nothing.
	before := files(t, root, "s")
	testutil.MustRun(t, root, "tag", "s", "keep=true", "--rm", "absent")
	if files(t, root, "s") != before {
		t.Fatal("a no-op tag command changed the files")
	}

	// Bad input: one line on stderr, exit 1, nothing written.
	for _, args := range [][]string{
		{"tag", "s", "novalue"},
		{"tag", "s", "=v"},
		{"tag", "s", "ok=1", "--rm", ""},
		{"tag", "s", "ok=1", "--rm"},
		{"tag", "s", "k=line\nbreak"},
		{"tag", "missing", "a=1"},
	} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || r.Stdout != "" || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || r.Stderr == "" {
			t.Errorf("pty %q: code %d stdout %q stderr %q; want exit 1 and one line on stderr", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	if files(t, root, "s") != before {
		t.Fatal("refused tag commands changed the files")
	}

	// Removing every tag removes the field.
	testutil.MustRun(t, root, "tag", "s", "--rm", "keep", "--rm", "url")
	if r := testutil.MustRun(t, root, "tag", "s"); !strings.HasPrefix(r.Stdout, "No tags on \"") {
		t.Fatalf("empty list: %q", r.Stdout)
	}
	if b, _ := os.ReadFile(layout.At(root).Paths("s").Meta()); strings.Contains(string(b), `"tags"`) {
		t.Fatal("an empty tag map was kept in the metadata")
	}
}

func TestTagWarnsAboutPtyfileSessions(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "m", "ptyfile=/srv/app/pty.toml")
	r := testutil.MustRun(t, root, "tag", "m", "x=1")
	if !strings.Contains(r.Stderr, "/srv/app/pty.toml") || !strings.Contains(r.Stderr, "warning") {
		t.Fatalf("no pty.toml warning: %q", r.Stderr)
	}
}

// 20 processes each run `pty tag` 10 times on one session while a reader
// parses the metadata in a loop: no read sees a torn file, no process
// fails, and no update is lost.
func TestTagConcurrentWritersLoseNothing(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "c")
	const writers, each = 20, 10

	stop := make(chan struct{})
	var reads, bad int
	var rwg sync.WaitGroup
	rwg.Add(1)
	go func() {
		defer rwg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			b, err := os.ReadFile(layout.At(root).Paths("c").Meta())
			var m layout.Metadata
			if err != nil || json.Unmarshal(b, &m) != nil {
				bad++
			}
			reads++
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan string, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 1; i <= each; i++ {
				r := testutil.RunCmd(t, testutil.Command(t, root, "", "tag", "c", fmt.Sprintf("w%d=%d", w, i)))
				if r.Code != 0 {
					errs <- fmt.Sprintf("writer %d run %d: exit %d: %s", w, i, r.Code, r.Stderr)
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if bad > 0 || reads == 0 {
		t.Errorf("%d of %d reads failed to parse", bad, reads)
	}
	m, err := layout.At(root).Metadata("c")
	if err != nil {
		t.Fatal(err)
	}
	for w := 0; w < writers; w++ {
		if got := m.Tags[fmt.Sprintf("w%d", w)]; got != fmt.Sprint(each) {
			t.Errorf("tag w%d = %q, want %d (an update was lost)", w, got, each)
		}
	}
	if n := len(tagEvents(t, root, "c")); n != writers*each {
		t.Errorf("%d tags_change events, want %d", n, writers*each)
	}
	t.Logf("%d metadata reads during %d concurrent tag commands", reads, writers*each)
}

func TestTagMulti(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "a", "role=web")
	start(t, root, "b", "role=web", "env=prod")
	start(t, root, "c", "role=db")

	// Read modes.
	r := testutil.MustRun(t, root, "tag-multi", "--filter-tag", "role=web", "--json")
	var got map[string]map[string]string
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || len(got) != 2 || got["b"]["env"] != "prod" {
		t.Fatalf("--json read: %q (%v)", r.Stdout, err)
	}
	if r := testutil.MustRun(t, root, "tag-multi", "--filter-tag", "role=none", "x=1"); r.Stdout != "0 sessions matched.\n" {
		t.Fatalf("empty match: %q", r.Stdout)
	}

	// One unknown ref aborts before anything is written.
	before := files(t, root, "a") + files(t, root, "b")
	r = testutil.Run(t, root, "tag-multi", "a", "nope", "b", "x=1")
	if r.Code != 1 || !strings.Contains(r.Stderr, `"nope" not found`) {
		t.Fatalf("unknown ref: code %d stderr %q", r.Code, r.Stderr)
	}
	if files(t, root, "a")+files(t, root, "b") != before {
		t.Fatal("a bulk change with an unknown ref wrote something")
	}

	// Explicit refs and filters write each session atomically.
	testutil.MustRun(t, root, "tag-multi", "a", "c", "tier=1")
	testutil.MustRun(t, root, "tag-multi", "--filter-tag", "role=web", "--filter-tag", "env=prod", "--rm", "env", "x=y")
	want := map[string]string{"a": "keep=true role=web tier=1", "b": "keep=true role=web x=y", "c": "keep=true role=db tier=1"}
	for id, w := range want {
		m, _ := layout.At(root).Metadata(id)
		if g := strings.Join(layout.SortedTags(m.Tags), " "); g != w {
			t.Errorf("%s tags = %q, want %q", id, g, w)
		}
	}

	// --all writes need --yes.
	before = files(t, root, "a") + files(t, root, "b") + files(t, root, "c")
	r = testutil.Run(t, root, "tag-multi", "--all", "tier=2")
	if r.Code == 0 || !strings.Contains(r.Stderr, "3 of 3 sessions") || !strings.Contains(r.Stderr, "--yes") {
		t.Fatalf("--all without --yes: code %d stderr %q", r.Code, r.Stderr)
	}
	if files(t, root, "a")+files(t, root, "b")+files(t, root, "c") != before {
		t.Fatal("--all without --yes wrote something")
	}
	testutil.MustRun(t, root, "tag-multi", "--all", "-y", "tier=2")
	for _, id := range []string{"a", "b", "c"} {
		if m, _ := layout.At(root).Metadata(id); m.Tags["tier"] != "2" {
			t.Errorf("%s: tier = %q after --all --yes", id, m.Tags["tier"])
		}
	}

	// Selectors are exclusive; bad ops are refused before reading.
	for _, args := range [][]string{
		{"tag-multi"},
		{"tag-multi", "--all", "a"},
		{"tag-multi", "--all", "--filter-tag", "role=web"},
		{"tag-multi", "a", "=x"},
		{"tag-multi", "a", "--rm", ""},
		{"tag-multi", "a", "x=1", "--json"},
	} {
		if r := testutil.Run(t, root, args...); r.Code != 1 || r.Stderr == "" {
			t.Errorf("pty %q: code %d stderr %q, want a usage error", args, r.Code, r.Stderr)
		}
	}
}
