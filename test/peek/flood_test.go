package peek

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// peek -f through a flood: the follower's terminal ends up with every
// line the session kept in its scrollback, once and in order, and a
// marker for those it did not keep, as an attached terminal does.
func TestPeekFollowFloodKeepsScrollback(t *testing.T) {
	root := testutil.Root(t)
	gate := filepath.Join(t.TempDir(), "go")
	testutil.MustRun(t, root, "run", "-d", "--id", "f", "--rows", "40", "--cols", "120", "--",
		"sh", "-c", "echo READY; while [ ! -e "+gate+" ]; do sleep 0.05; done; "+testutil.FloodPlain+"; echo DONE; exec cat")
	u := testutil.StartUserTmux(t, root, 40, 120, nil, "peek", "-f", "f")
	u.WaitText("READY")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	all := testutil.WaitFloodScrollback(u, "DONE")
	testutil.CheckFlood(t, all, 100000)
}
