// Package relaunchtest is the shared check for every way of starting a
// session again (restart, attach -r, run -a, the picker, gc): each entry
// point's test starts an Ended session, relaunches it its own way and
// checks the same promises.
package relaunchtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// Ended is a strategy=permanent session that has run once and ended, for
// the tests of every way of starting a session again (restart, attach -r,
// run -a, the picker, gc): they must all apply the same rules.
type Ended struct {
	ID      string
	Cwd     string
	Command []string // what it runs: it records its environment in Marker
	Marker  string
	Before  *layout.Metadata
}

// AgentEnv is an agent harness's variable in the environment of whoever
// starts a session again; it must not reach the new session.
const AgentEnv = "ST_AGENT=leaked"

// Start starts session id and waits until it has ended and its daemon
// is gone. With flapping, it carries gc's crash-loop bookkeeping
// (strategy.status=flapping and the counters), as a session gc gave up on.
func Start(t testing.TB, root, id string, flapping bool) Ended {
	t.Helper()
	e := Ended{ID: id, Cwd: t.TempDir()}
	e.Marker = filepath.Join(e.Cwd, "marker")
	e.Command = []string{"sh", "-c", `echo "agent=${ST_AGENT-none} gen=$PTY_SESSION_GENERATION" > marker; read x; exit 3`}
	args := []string{"run", "-d", "--id", id, "--name", id, "--cwd", e.Cwd, "--tag", "strategy=permanent", "--tag", "team=a"}
	if flapping {
		args = append(args, "--tag", layout.TagStatus+"="+layout.StatusFlapping, "--tag", layout.TagConsecutiveFails+"=3",
			"--tag", layout.TagLastRespawnAt+"=2020-01-01T00:00:00.000Z", "--tag", layout.TagCommandHash+"=abc")
	}
	testutil.MustRun(t, root, append(append(args, "--"), e.Command...)...)
	testutil.WaitFor(t, 10*time.Second, "the first run's marker", func() bool { _, err := os.Stat(e.Marker); return err == nil })
	pid := layout.At(root).Pid(id)
	if err := client.Send(root, id, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, id+" to end and its daemon to exit", func() bool {
		s, err := layout.At(root).Load(id)
		return err == nil && s.Shown() == layout.Exited && (pid <= 0 || !processAlive(pid))
	})
	os.Remove(e.Marker)
	e.Before, _ = layout.At(root).Metadata(id)
	return e
}

// CheckRelaunched waits for the session to run again and checks what every
// relaunch promises: a new generation, the strategy tag and other tags
// kept, the agent variable scrubbed from its environment, and gc's
// bookkeeping cleared (unless byGC: gc writes its own afresh).
func (e Ended) CheckRelaunched(t testing.TB, root string, byGC bool) {
	t.Helper()
	var marker string
	testutil.WaitFor(t, 15*time.Second, e.ID+" to run again", func() bool {
		b, _ := os.ReadFile(e.Marker)
		marker = strings.TrimSpace(string(b))
		return strings.HasPrefix(marker, "agent=")
	})
	s, err := layout.At(root).Load(e.ID)
	if err != nil || s.Shown() != layout.Running {
		t.Fatalf("%s after the relaunch: %+v %v", e.ID, s, err)
	}
	m := s.Meta
	if m.Generation == e.Before.Generation || marker != "agent=none gen="+m.Generation {
		t.Errorf("%s: marker %q, generation %s, was %s", e.ID, marker, m.Generation, e.Before.Generation)
	}
	if m.Tags["strategy"] != "permanent" || m.Tags["team"] != "a" {
		t.Errorf("%s lost tags: %v", e.ID, m.Tags)
	}
	if m.Tags[layout.TagStatus] != "" {
		t.Errorf("%s is still flagged: %v", e.ID, m.Tags)
	}
	if !byGC {
		for _, k := range layout.FastFailTags() {
			if _, ok := m.Tags[k]; ok {
				t.Errorf("%s kept gc bookkeeping tag %s: %v", e.ID, k, m.Tags)
			}
		}
	}
}

func processAlive(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}
