package reconcile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// waitFirstKept waits until id's `peek --plain --full` ends with the 200th
// line of `seq 1 200` and starts with first.
func waitFirstKept(t *testing.T, root, id, first string) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, id+"'s scrollback to start at "+first, func() (bool, string) {
		out := strings.TrimRight(testutil.Run(t, root, "peek", "--plain", "--full", id).Stdout, "\n")
		got, _, _ := strings.Cut(out, "\n")
		return got == first && strings.HasSuffix(out, "\n200"), "starts at " + got
	})
}

func recordScrollback(t *testing.T, root, id string) int {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scrollback == nil {
		return -1
	}
	return *m.Scrollback
}

// A respawned permanent session keeps the scrollback it was started with;
// one from a pty.toml takes the file's value as it is now.
func TestRespawnKeepsScrollback(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	seq := "seq 1 200; exec sleep 300"
	start(t, root, nil, "--id", "p", "--scrollback", "50", "--permanent", "--rows", "24", "--cols", "80", "--", "sh", "-c", seq)
	// 177 lines scroll off a 24-row screen; the last 50 start at 128.
	waitFirstKept(t, root, "p", "128")

	dir := t.TempDir()
	toml := filepath.Join(dir, "pty.toml")
	write := func(n string) {
		body := "[sessions.f]\nid = \"f\"\ncommand = \"" + seq + "\"\ntags = { strategy = \"permanent\" }\nscrollback = " + n + "\n"
		if err := os.WriteFile(toml, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("50")
	testutil.MustRun(t, root, "up", dir)
	waitFirstKept(t, root, "f", "128")

	vanish(t, root, "p")
	vanish(t, root, "f")
	write("30")
	mustHave(t, gcPass(t, root), "Respawned: p", "Respawned: f")
	waitFirstKept(t, root, "p", "128")
	waitFirstKept(t, root, "f", "148")
	if n := recordScrollback(t, root, "p"); n != 50 {
		t.Errorf("p's record after the respawn has scrollback %d, want 50", n)
	}
	if n := recordScrollback(t, root, "f"); n != 30 {
		t.Errorf("f's record after the respawn has scrollback %d, want the file's 30", n)
	}
}
