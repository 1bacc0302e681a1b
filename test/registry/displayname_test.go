package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestDisplayNameRules pins the newest original's display-name contract
// through the binaries: non-empty, already trimmed, one line, no control
// characters, at most 160 Unicode scalar values (not bytes), and not
// unique: a name two sessions share resolves to neither, naming both ids,
// while each id still resolves.
func TestDisplayNameRules(t *testing.T) {
	root := testutil.Root(t)
	for _, id := range []string{"dn-one", "dn-two"} {
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--no-display-name", "--", "sh", "-c", "echo I-am-$0; sleep 60", id)
	}
	long := strings.Repeat("é", 160) // 320 bytes
	testutil.MustRun(t, root, "rename", "dn-one", long)
	if r := testutil.MustRun(t, root, "rename", "--show", "dn-one"); strings.TrimSpace(r.Stdout) != long {
		t.Errorf("rename --show: %q, want the 160-character name", r.Stdout)
	}
	for _, bad := range []string{strings.Repeat("é", 161), " padded", "two\nlines", "bell\x07", "sep\u2028x", ""} {
		r := testutil.Run(t, root, "rename", "dn-two", bad)
		lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
		if r.Code != 1 || len(lines) != 1 || r.Stdout != "" {
			t.Errorf("rename to %q: exit %d stdout %q stderr %q; want it refused in one line", bad, r.Code, r.Stdout, r.Stderr)
		}
	}
	testutil.MustRun(t, root, "rename", "dn-one", "shared name")
	testutil.MustRun(t, root, "rename", "dn-two", "shared name")
	r := testutil.Run(t, root, "peek", "shared name")
	if want := "Session reference \"shared name\" is ambiguous. Matching stable session IDs: dn-one, dn-two\n"; r.Code != 1 || r.Stderr != want {
		t.Errorf("peek of a shared name: exit %d %q, want %q", r.Code, r.Stderr, want)
	}
	for _, id := range []string{"dn-one", "dn-two"} {
		testutil.WaitForState(t, 15*time.Second, "peek "+id, func() (bool, string) {
			r := testutil.Run(t, root, "peek", "--plain", id)
			return strings.Contains(r.Stdout, "I-am-"+id), r.Stdout + r.Stderr
		})
	}
}
