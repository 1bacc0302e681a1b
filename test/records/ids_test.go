package records

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// Ids shaped like the root's own file names were accepted: the session
// was then invisible to list, its files were gc's debris and kill could
// not find it while its daemon ran on.
func TestIDsThatCollideWithRegistryNamesAreRefused(t *testing.T) {
	root := testutil.Root(t)
	bad := []string{
		"v.tmp.999999.zz", // a temporary file: readers skip it, gc deletes it
		"a.tmp",           // a.tmp.json is a temporary file too
		"a.events",        // a.events.lock is session a's event lock
		"a.EVENTS",        // the same on a case-insensitive root
		"a.json", "a.jsonl", "a.lock", "a.pid", "a.sock", "a.gc-claim",
		"-x",      // reads as an option
		".hidden", // hidden files
	}
	for _, id := range bad {
		r := testutil.Run(t, root, "run", "-d", "--id", id, "--", "sleep", "100")
		oneLineError(t, "--id "+id, r, "session id")
		if f := testutil.DirNames(t, root); len(f) != 0 {
			t.Fatalf("--id %s: root not empty afterwards: %v", id, f)
		}
	}

	// "--id --" took "--" as the id and started "sleep 100" as a session
	// called "--".
	r := testutil.Run(t, root, "run", "-d", "--id", "--", "sleep", "100")
	oneLineError(t, "--id --", r, "starts with '-'")
	if f := testutil.DirNames(t, root); len(f) != 0 {
		t.Fatalf("--id --: root not empty afterwards: %v", f)
	}

	// The other ways to name a session by id refuse the same names.
	r = testutil.Run(t, root, "metadata", "patch", "--id", "v.tmp.1.zz")
	oneLineError(t, "metadata patch --id", r, "session id")
}

// The offending character was reported byte by byte ('Ã' for 'é').
func TestBadIDCharacterIsReportedAsTyped(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.Run(t, root, "run", "-d", "--id", "héllo", "--", "true")
	oneLineError(t, "--id héllo", r, "'é'")
	if strings.Contains(r.Stderr, "Ã") {
		t.Errorf("stderr decodes the id byte by byte: %q", r.Stderr)
	}
	r = testutil.Run(t, root, "run", "-d", "--id", "a\xffb", "--", "true")
	oneLineError(t, "invalid UTF-8 id", r, "0xff")
}
