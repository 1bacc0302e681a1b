package run

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// run -d returns before the daemon has initialised (the launcher publishes
// the session, and clients wait in the socket's backlog): whatever comes
// right after must find the session usable.

func TestRunDetachedUsableAtOnce(t *testing.T) {
	root := testutil.Root(t)
	for i := range 6 {
		id := "u" + strconv.Itoa(i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "cat")
		s, err := layout.At(root).Load(id)
		if err != nil || s.Status != layout.Running {
			t.Fatalf("%s right after run -d: %+v, %v", id, s, err)
		}
		if list := testutil.MustRun(t, root, "list", "--json").Stdout; !strings.Contains(list, `"`+id+`"`) {
			t.Fatalf("list right after run -d lacks %s: %s", id, list)
		}
		testutil.MustRun(t, root, "peek", "--plain", id)
		testutil.MustRun(t, root, "send", id, "--seq", "typed-"+id, "--seq", "key:return")
		waitScreen(t, root, id, "typed-"+id)
	}
}

// TestKillRightAfterRunRecordsTheExit stops sessions as fast as a caller
// can, in process: the daemon may still be starting, and the stop must
// still be recorded as the session's exit.
func TestKillRightAfterRunRecordsTheExit(t *testing.T) {
	root := testutil.Root(t)
	for i := range 6 {
		id := "k" + strconv.Itoa(i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "keep=1", "--", "sleep", "100")
		s, err := layout.At(root).Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lifecycle.Kill(root, s, lifecycle.KillOptions{}); err != nil {
			t.Fatalf("kill %s: %v", id, err)
		}
		s, err = layout.At(root).Load(id)
		if err != nil || s.Status != layout.Exited || s.Meta.ExitCode == nil {
			t.Fatalf("%s after kill: status %v, record %+v, %v: want its exit recorded", id, s.Status, s.Meta, err)
		}
	}
}

func TestRunSameIDConcurrently(t *testing.T) {
	root := testutil.Root(t)
	for round := range 3 {
		id := "c" + strconv.Itoa(round)
		const n = 5
		res := make([]testutil.Result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = testutil.Run(t, root, "run", "-d", "--id", id, "--", "sleep", "100")
			}()
		}
		wg.Wait()
		won := 0
		for _, r := range res {
			switch {
			case r.Code == 0:
				won++
			case r.Code != 1 || !strings.Contains(r.Stderr, "already running"):
				t.Errorf("a losing run -d --id %s: %+v", id, r)
			}
		}
		if won != 1 {
			t.Fatalf("%d of %d concurrent run -d --id %s succeeded, want 1: %+v", won, n, id, res)
		}
		s, err := layout.At(root).Load(id)
		if err != nil || s.Status != layout.Running {
			t.Fatalf("%s: %+v %v", id, s, err)
		}
		if daemons := sessionDaemons(t, root, id); len(daemons) != 1 {
			t.Fatalf("daemons serving %s: %v, want one", id, daemons)
		}
	}
}

// TestRunDaemonDiesBeforeAccepting: a daemon killed before it serves
// anyone leaves a vanished session that clients report, and rm clears.
func TestRunDaemonDiesBeforeAccepting(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--", "sleep", "100")
	pid := daemonPid(t, root, "gone")
	syscall.Kill(pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "the session to show as vanished", func() bool {
		s, err := layout.At(root).Load("gone")
		return err == nil && s.Status == layout.Vanished
	})
	if r := testutil.Run(t, root, "peek", "gone"); !strings.Contains(r.Stdout+r.Stderr, "vanished") {
		t.Errorf("peek of a session whose daemon died: %+v", r)
	}
	testutil.MustRun(t, root, "rm", "gone")
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--", "sh", "-c", "echo back; exec sleep 100")
	waitScreen(t, root, "gone", "back")
}

// TestRunUnstartableCommandFailsAtOnce: a command the kernel will not run
// is reported by run itself, with nothing left behind.
func TestRunUnstartableCommandFailsAtOnce(t *testing.T) {
	root := testutil.Root(t)
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"plain", "echo hi\n", "exec format error"},
		{"badinterp", "#!/no/such/shell\necho hi\n", "no such file or directory"},
		{"junkelf", "\x7fELF\x02\x01\x01" + strings.Repeat("\x00", 100), "exec format error"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o755); err != nil {
			t.Fatal(err)
		}
		r := testutil.Run(t, root, "run", "-d", "--id", c.name, "--", p)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("run -d of %s: %+v, want exit 1 and %q", c.name, r, c.want)
		}
	}
	if names := testutil.DirNames(t, root); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}

// TestRunStartFailureAfterReturnIsTheExit: a start that fails after run
// -d returned (here the file is open for writing: ETXTBSY) ends the
// session with exit status 126 and the reason on its screen.
func TestRunStartFailureAfterReturnIsTheExit(t *testing.T) {
	root := testutil.Root(t)
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "busy")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "busy", "--tag", "keep=1", "--", p, "100")
	var m *layout.Metadata
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		m, err = layout.At(root).Metadata("busy")
		return err == nil && m.Exited()
	})
	if *m.ExitCode != 126 || !strings.Contains(strings.Join(m.LastLines, ""), "text file busy") {
		t.Errorf("exit %d, last lines %q: want 126 and the reason", *m.ExitCode, m.LastLines)
	}
}

// sessionDaemons lists the live daemons of session id in root. A
// daemon's child between its fork and its exec of the session's command
// still shows the daemon's command line; it is the daemon's, not another
// daemon, so a match whose parent matches too is left out.
func sessionDaemons(t *testing.T, root, id string) []int {
	t.Helper()
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	parent := map[int]int{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) >= 4 && filepath.Base(args[0]) == layout.DaemonName && args[1] == id && args[3] == root {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(n)))
			parent[pid] = ppid(pid)
		}
	}
	var pids []int
	for pid, pp := range parent {
		if _, child := parent[pp]; !child {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}
