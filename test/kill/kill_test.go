package kill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

func readPids(t *testing.T, path string, n int) []int {
	t.Helper()
	var pids []int
	testutil.WaitFor(t, 10*time.Second, path, func() bool {
		b, _ := os.ReadFile(path)
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(f); err == nil {
				pids = append(pids, p)
			}
		}
		return len(pids) >= n
	})
	return pids
}

func alive(pid int) bool {
	p, ok := procs.Lookup(pid)
	return ok && !p.Zombie
}

func TestKillStopsTheWholeTreeAndKeepsTheRecord(t *testing.T) {
	root := testutil.Root(t)
	pidsFile := filepath.Join(root, "tree.pids")
	// A shell with a background job, a job in a session of its own (like
	// a daemonizing program) and a double-forked orphan.
	script := `sleep 1000 & echo $! >> ` + pidsFile + `
setsid sleep 1001 & echo $! >> ` + pidsFile + `
( sleep 1002 & echo $! >> ` + pidsFile + ` ) 
echo $$ >> ` + pidsFile + `
wait`
	testutil.MustRun(t, root, "run", "-d", "--id", "tree", "--", "sh", "-c", script)
	pids := readPids(t, pidsFile, 4)
	for _, p := range pids {
		if !alive(p) {
			t.Fatalf("pid %d of the session is not running before kill", p)
		}
	}
	r := testutil.MustRun(t, root, "kill", "tree")
	if r.Stdout != "Session \"tree\" killed.\n" || r.Stderr != "" {
		t.Errorf("kill: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	for _, p := range pids {
		if alive(p) {
			t.Errorf("pid %d survived a successful kill", p)
		}
	}
	s, err := layout.At(root).Load("tree")
	if err != nil {
		t.Fatalf("kill removed the record: %v", err)
	}
	if s.Status != layout.Exited {
		t.Errorf("status after kill = %s, want exited", s.Status)
	}
	for _, f := range []string{"tree.sock", "tree.pid"} {
		if _, err := os.Stat(filepath.Join(root, f)); !os.IsNotExist(err) {
			t.Errorf("%s still there after kill", f)
		}
	}

	r = testutil.Run(t, root, "kill", "tree")
	if r.Code != 1 || strings.TrimSpace(r.Stderr) != `Session "tree" is not running. Use "pty rm tree" to remove it.` {
		t.Errorf("second kill: exit %d stderr %q", r.Code, r.Stderr)
	}
}

func TestKillPermanentDropsStrategy(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "perm", "--tag", "strategy=permanent", "--tag", "team=x", "--", "sleep", "1000")
	testutil.MustRun(t, root, "kill", "perm")
	m, err := layout.At(root).Metadata("perm")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Tags["strategy"]; ok || m.Tags["team"] != "x" {
		t.Errorf("tags after killing a permanent session = %v, want team only", m.Tags)
	}
	evs, _ := layout.At(root).Events("perm")
	found := false
	for _, e := range evs {
		if e.Type == layout.EventTagsChange {
			prev, _ := json.Marshal(e.Fields["previous"])
			val, _ := json.Marshal(e.Fields["value"])
			found = strings.Contains(string(prev), `"strategy":"permanent"`) && !strings.Contains(string(val), "strategy")
		}
	}
	if !found {
		t.Errorf("no tags_change event dropping strategy: %+v", evs)
	}
}

func TestKillEphemeralRemovesFiles(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "-e", "--id", "eph", "--", "sleep", "1000")
	testutil.MustRun(t, root, "kill", "eph")
	for _, f := range layout.At(root).Paths("eph").All() {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s still there after killing an ephemeral session", f)
		}
	}
}

func TestKillTimesOutOnAStuckDaemon(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "stuck", "--", "sleep", "1000")
	pid := layout.At(root).Pid("stuck")
	// A stopped daemon cannot act on SIGTERM: kill must give up, say so,
	// and leave the socket to its owner.
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGCONT)
	r := testutil.Run(t, root, "kill", "stuck")
	want := `Failed to kill session "stuck": daemon PID ` + strconv.Itoa(pid) + ` is still running after 7s.`
	if r.Code == 0 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stdout, "killed") {
		t.Errorf("kill of a stopped daemon: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "stuck.sock")); err != nil {
		t.Errorf("socket of a live daemon removed: %v", err)
	}
	syscall.Kill(pid, syscall.SIGCONT)
	testutil.WaitFor(t, 10*time.Second, "the daemon to act on the pending SIGTERM", func() bool { return !alive(pid) })
}

func TestKillUnknown(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.Run(t, root, "kill", "nope")
	if r.Code != 1 || strings.TrimSpace(r.Stderr) != `Session "nope" not found.` {
		t.Errorf("kill nope: exit %d stderr %q", r.Code, r.Stderr)
	}
}
