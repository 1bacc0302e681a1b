package run

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// run -a --name is the original's create-or-attach by name: the first
// call creates a session with that display name, the next finds it
// again; two sessions with the name are an error naming both.
func TestRunAgainByName(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.MustRun(t, root, "run", "-d", "-P", "-a", "--name", "foo", "--", "sleep", "60")
	id := strings.TrimSuffix(r.Stdout, "\n")
	s, err := layout.At(root).Load(id)
	if err != nil || s.Meta.DisplayName == nil || *s.Meta.DisplayName != "foo" {
		t.Fatalf("run -a --name foo printed %q: record %+v, %v; want a session named foo", r.Stdout, s.Meta, err)
	}
	if r := testutil.MustRun(t, root, "run", "-d", "-P", "-a", "--name", "foo", "--", "sleep", "60"); r.Stdout != id+"\n" {
		t.Errorf("a second run -a --name foo printed %q, want the same session %q", r.Stdout, id)
	}
	if list, _ := layout.At(root).List(); len(list) != 1 {
		t.Errorf("after two run -a --name foo there are %d sessions, want 1", len(list))
	}

	// The original's --name was the id: its sessions are found by it.
	testutil.MustRun(t, root, "run", "-d", "--id", "old", "--name", "derived", "--", "sleep", "60")
	if r := testutil.MustRun(t, root, "run", "-d", "-P", "-a", "--name", "old", "--", "sleep", "60"); r.Stdout != "old\n" {
		t.Errorf("run -a --name old with a session whose id is old printed %q, want old", r.Stdout)
	}

	testutil.MustRun(t, root, "run", "-d", "--id", "other", "--name", "foo", "--", "sleep", "60")
	r = testutil.Run(t, root, "run", "-d", "-a", "--name", "foo", "--", "sleep", "60")
	if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, id) || !strings.Contains(r.Stderr, "other") {
		t.Errorf("run -a --name with two sessions named foo: %+v, want one line naming both ids, exit 1", r)
	}
}
