package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// TestRefPrefixes resolves REFs through the built binaries as a tmux user
// types them: exact id, exact display name, then a unique prefix of an id,
// then of a display name; an ambiguous prefix names its candidates, and a
// command that stops a session takes a prefix too.
func TestRefPrefixes(t *testing.T) {
	root := testutil.Root(t)
	for _, s := range [][2]string{{"kunbbreu", "API server"}, {"kunzzzzz", "db"}, {"abc12345", "kunb"}} {
		testutil.MustRun(t, root, "run", "-d", "--id", s[0], "--name", s[1], "--", "sh", "-c", "echo I-am-$0; sleep 60", s[0])
	}
	peek := func(ref string) testutil.Result {
		t.Helper()
		var r testutil.Result
		testutil.WaitForState(t, 15*time.Second, "peek "+ref+" to show its session", func() (bool, string) {
			r = testutil.Run(t, root, "peek", "--plain", ref)
			return r.Code != 0 || strings.Contains(r.Stdout, "I-am-"), r.Stdout + r.Stderr
		})
		return r
	}
	for ref, want := range map[string]string{
		"kunbbreu": "kunbbreu", // exact id
		"kunb":     "abc12345", // exact display name beats an id prefix
		"kunbb":    "kunbbreu", // unique id prefix
		"abc":      "abc12345",
		"AP":       "kunbbreu", // unique display-name prefix
		"d":        "kunzzzzz",
	} {
		if r := peek(ref); r.Code != 0 || !strings.Contains(r.Stdout, "I-am-"+want) {
			t.Errorf("peek %q: want session %s, got exit %d %q %q", ref, want, r.Code, r.Stdout, r.Stderr)
		}
	}
	r := testutil.Run(t, root, "peek", "kun")
	if want := "Session reference \"kun\" is ambiguous. Matching stable session IDs: kunbbreu, kunzzzzz\n"; r.Code != 1 || r.Stderr != want {
		t.Errorf("ambiguous prefix: exit %d %q, want %q", r.Code, r.Stderr, want)
	}
	r = testutil.Run(t, root, "peek", "nope")
	if r.Code != 1 || r.Stderr != "Session \"nope\" not found.\n" {
		t.Errorf("no match: exit %d %q", r.Code, r.Stderr)
	}
	testutil.MustRun(t, root, "kill", "kunz")
	testutil.WaitForState(t, 15*time.Second, "kunzzzzz to stop", func() (bool, string) {
		s, err := layout.At(root).Load("kunzzzzz")
		if err != nil {
			return true, err.Error()
		}
		return s.Status != layout.Running, string(s.Status)
	})
	if s, err := layout.At(root).Load("kunbbreu"); err != nil || s.Status != layout.Running {
		t.Errorf("kill kunz touched kunbbreu: %v %v", s.Status, err)
	}
}
