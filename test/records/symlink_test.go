package records

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// A symbolic link planted as <id>.events.jsonl was followed and appended
// to; no file in the root may be followed.
func TestFilesInTheRootAreNotFollowedThroughLinks(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	p := layout.At(root).Paths("s")
	outside := filepath.Join(t.TempDir(), "outside")
	const content = "not pty's\n"
	if err := os.WriteFile(outside, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(path string) {
		t.Helper()
		os.Remove(path)
		if err := os.Symlink(outside, path); err != nil {
			t.Fatal(err)
		}
	}

	// The event log.
	link(p.Events())
	meta := readFile(t, p.Meta())
	for _, args := range [][]string{{"tag", "s", "x=1"}, {"emit", "s", "user.x"}, {"state", "set", "s", "k", "1"}, {"rename", "s", "web"}} {
		oneLineError(t, strings.Join(args, " "), testutil.Run(t, root, args...), "symbolic link")
	}
	if r := testutil.Run(t, root, "events", "s", "--recent"); r.Code != 1 || !strings.Contains(r.Stderr, "symbolic link") {
		t.Errorf("events --recent: exit %d, %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if readFile(t, outside) != content {
		t.Fatal("the link's target was written")
	}
	if readFile(t, p.Meta()) != meta {
		t.Fatal("the record changed although the change could not be logged")
	}
	os.Remove(p.Events())

	// The lock files: a link is garbage, reclaimed without touching its
	// target.
	link(p.Lock())
	link(p.EventsLock())
	testutil.MustRun(t, root, "tag", "s", "y=1")
	if readFile(t, outside) != content {
		t.Fatal("a lock's link target was changed")
	}

	// The pid file and the record: a linked record is damaged, not read.
	pid := readFile(t, p.Pid())
	// The link leads to another live process's pid: followed, it would
	// be listed (or would make the session look dead).
	other := os.Getpid()
	if err := os.WriteFile(outside, []byte(strconv.Itoa(other)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link(p.Pid())
	// (The socket still answers, so the session is running, but its
	// pid is not taken from the link.)
	if e := listJSON(t, root)["s"]; e.Pid != nil && *e.Pid == other {
		t.Errorf("a linked pid file was read: %+v", e)
	}
	os.Remove(p.Pid())
	os.WriteFile(p.Pid(), []byte(pid), 0o600)
	good := readFile(t, p.Meta())
	os.WriteFile(outside, []byte(good), 0o600)
	link(p.Meta())
	if e := listJSON(t, root)["s"]; !strings.Contains(e.Damaged, "symbolic link") {
		t.Errorf("a linked record was read: %+v", e)
	}
	oneLineError(t, "tag with a linked record", testutil.Run(t, root, "tag", "s", "z=1"), "damaged")
	if readFile(t, outside) != good {
		t.Fatal("the record's link target was changed")
	}
}
