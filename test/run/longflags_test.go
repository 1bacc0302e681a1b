package run

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// TestRunLongFlags: the newest original's long forms of run's one-letter
// flags, --detach, --attach and --ephemeral, are -d, -a and -e.
func TestRunLongFlags(t *testing.T) {
	root := testutil.Root(t)
	if r := testutil.MustRun(t, root, "run", "--detach", "--ephemeral", "--id", "lf", "--", "sleep", "60"); !strings.Contains(r.Stdout, `Session "lf" created.`) {
		t.Errorf("run --detach: %+v", r)
	}
	if m, err := layout.At(root).Metadata("lf"); err != nil || !m.Ephemeral {
		t.Errorf("run --ephemeral: ephemeral %v (%v), want true", m.Ephemeral, err)
	}
	if r := testutil.MustRun(t, root, "run", "--detach", "--attach", "--id", "lf", "--", "sleep", "60"); !strings.Contains(r.Stdout, `Session "lf" is already running.`) {
		t.Errorf("run --attach on a running id: %+v, want it found running, not refused", r)
	}
	testutil.MustRun(t, root, "kill", "lf")
}
