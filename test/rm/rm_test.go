package rm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRmRefusesRunningAndRemovesStopped(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "r1", "--tag", "keep=true", "--", "sleep", "1000")
	r := testutil.Run(t, root, "rm", "r1")
	if r.Code != 1 || strings.TrimSpace(r.Stderr) != `Session "r1" is running. Stop it first with "pty kill r1".` {
		t.Errorf("rm of a running session: exit %d stderr %q", r.Code, r.Stderr)
	}
	if _, err := layout.At(root).Metadata("r1"); err != nil {
		t.Fatalf("refused rm touched the record: %v", err)
	}
	testutil.MustRun(t, root, "kill", "r1")
	r = testutil.MustRun(t, root, "remove", "r1")
	if r.Stdout != "Session \"r1\" removed.\n" {
		t.Errorf("rm output %q", r.Stdout)
	}
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "r1.") {
			t.Errorf("%s left after rm", e.Name())
		}
	}
	if r := testutil.Run(t, root, "rm", "r1"); r.Code != 1 || !strings.Contains(r.Stderr, `Session "r1" not found.`) {
		t.Errorf("rm of a removed session: exit %d stderr %q", r.Code, r.Stderr)
	}
}

func healthy(t *testing.T, root, id string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, id+".sock")); err != nil {
		t.Fatalf("session %s has no socket: %v", id, err)
	}
	r := testutil.Run(t, root, "stats", "--json", id)
	var st struct {
		Process struct{ Alive bool }
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &st) != nil || !st.Process.Alive {
		t.Fatalf("session %s does not answer STATUS: exit %d %s %s", id, r.Code, r.Stdout, r.Stderr)
	}
	// peek belongs to another package; check it whenever it is built.
	if _, err := os.Stat(filepath.Join(testutil.BinDir(t), "pty-peek")); err == nil {
		if r := testutil.Run(t, root, "peek", id); r.Code != 0 {
			t.Fatalf("peek %s: exit %d %s", id, r.Code, r.Stderr)
		}
	}
}

// The old daemon's shutdown must never remove what a new session with the
// same id created: rm returns only once the old daemon is gone.
func TestKillRmRunCyclesOnOneID(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "same", "--", "sleep", "1000")
	for i := 0; i < 20; i++ {
		healthy(t, root, "same")
		testutil.MustRun(t, root, "kill", "same")
		testutil.MustRun(t, root, "rm", "same")
		testutil.MustRun(t, root, "run", "-d", "--id", "same", "--", "sleep", "1000")
	}
	healthy(t, root, "same")
}

func TestRmWaitsForAnExitingDaemon(t *testing.T) {
	root := testutil.Root(t)
	// The command exits at once; rm may run while its daemon is still
	// flushing. It must wait, then leave the id free for an immediate run.
	for i := 0; i < 5; i++ {
		testutil.MustRun(t, root, "run", "-d", "--id", "quick", "--tag", "keep=true", "--", "true")
		testutil.WaitFor(t, 10*time.Second, "the exit record", func() bool {
			m, err := layout.At(root).Metadata("quick")
			return err == nil && m.Exited()
		})
		testutil.MustRun(t, root, "rm", "quick")
		testutil.MustRun(t, root, "run", "-d", "--id", "quick", "--tag", "keep=true", "--", "sleep", "1000")
		healthy(t, root, "quick")
		testutil.MustRun(t, root, "kill", "quick")
		testutil.MustRun(t, root, "rm", "quick")
	}
}
