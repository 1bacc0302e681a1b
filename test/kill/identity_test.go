package kill

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

// crash SIGKILLs a session's daemon, as the OOM killer or a crash would:
// nothing is recorded and the pid file stays. It returns the daemon's pid.
func crash(t *testing.T, root, id string) int {
	t.Helper()
	pid := layout.At(root).Pid(id)
	if pid <= 0 {
		t.Fatalf("%s has no pid file", id)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, id+"'s daemon to die", func() bool { return !alive(pid) })
	return pid
}

func statuses(t *testing.T, root string) map[string]string {
	t.Helper()
	r := testutil.MustRun(t, root, "list", "--json")
	var es []struct{ Name, Status string }
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	out := map[string]string{}
	for _, e := range es {
		out[e.Name] = e.Status
	}
	return out
}

// A pid file names a pid, not a process: after A's daemon died, its pid
// file pointing at B's daemon (a pid reused by another session's daemon,
// or a file copied over) must neither make A look running nor let
// `pty kill A` stop B.
func TestKillNeverSignalsAnotherSessionsDaemon(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "A", "--no-display-name", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "B", "--no-display-name", "--", "sleep", "1000")
	crash(t, root, "A")
	b := layout.At(root).Pid("B")
	if err := os.WriteFile(layout.At(root).Paths("A").Pid(), []byte(strconv.Itoa(b)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	if st := statuses(t, root); st["A"] != "vanished" || st["B"] != "running" {
		t.Errorf("list with A.pid naming B's daemon: %v, want A vanished and B running", st)
	}
	r := testutil.Run(t, root, "kill", "A")
	if strings.Contains(r.Stdout, "killed") {
		t.Errorf("kill A reported a kill: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if !alive(b) {
		t.Fatalf("kill A stopped B's daemon (pid %d)", b)
	}
	if st := statuses(t, root); st["B"] != "running" {
		t.Errorf("after kill A, B is %q", st["B"])
	}
	// rm and gc, which wait for and signal daemons too, leave B alone.
	testutil.MustRun(t, root, "rm", "A")
	testutil.MustRun(t, root, "gc")
	if !alive(b) {
		t.Fatalf("rm or gc of A stopped B's daemon (pid %d)", b)
	}
}

// gc reaps an orphan (tagged parent=<a session that does not exist>) by
// signalling its daemon: when the orphan's daemon is already gone and its
// pid file names another session's daemon, that daemon must live on.
func TestGcOrphanReapSparesTheOwnerOfAReusedPid(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "K", "--no-display-name", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "O", "--no-display-name", "--tag", "parent=ghost", "--", "sleep", "1000")
	crash(t, root, "O")
	k := layout.At(root).Pid("K")
	if err := os.WriteFile(layout.At(root).Paths("O").Pid(), []byte(strconv.Itoa(k)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "gc")
	if !alive(k) {
		t.Fatalf("gc reaping orphan O stopped session K's daemon (pid %d)", k)
	}
	if _, err := os.Stat(layout.At(root).Paths("O").Meta()); !os.IsNotExist(err) {
		t.Errorf("orphan O not reaped: %v", err)
	}
	if st := statuses(t, root); st["K"] != "running" {
		t.Errorf("after gc, K is %q", st["K"])
	}
}

// The loop of a session whose daemon was SIGKILLed: it ignores the hangup
// the daemon's death sends, so it runs on, reparented and untracked.
const hupProof = `trap "" HUP; while :; do sleep .5; done`

// leftover starts a session running hupProof, crashes its daemon and
// returns the loop's shell, still running.
func leftover(t *testing.T, root, id string) procs.Proc {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--no-display-name", "--", "bash", "-c", hupProof)
	daemon := layout.At(root).Pid(id)
	var sh procs.Proc
	// Once the shell has started a sleep, its trap is set.
	testutil.WaitFor(t, 10*time.Second, id+"'s loop to run", func() bool {
		tree, _ := procs.Tree(daemon)
		for _, p := range tree {
			if p.PPid == daemon {
				sh = p
			}
		}
		return len(tree) >= 3 && sh.Pid > 0
	})
	crash(t, root, id)
	testutil.WaitFor(t, 10*time.Second, id+" to read as vanished", func() bool { return statuses(t, root)[id] == "vanished" })
	time.Sleep(600 * time.Millisecond) // past one turn of the loop: it survived the hangup
	if !procs.Still(sh) {
		t.Fatalf("%s's shell did not outlive its daemon: nothing to test", id)
	}
	return sh
}

func TestKillStopsWhatACrashedDaemonLeft(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	sh := leftover(t, root, "HU")
	r := testutil.Run(t, root, "kill", "HU")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, `Session "HU": daemon was gone; stopped `) || !strings.Contains(r.Stdout, " leftover process") {
		t.Errorf("kill HU: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if procs.Still(sh) {
		t.Fatalf("kill HU left its loop (pid %d) running", sh.Pid)
	}
	r = testutil.Run(t, root, "kill", "HU")
	if r.Code != 1 || !strings.Contains(r.Stderr, `Session "HU" is not running.`) {
		t.Errorf("second kill HU: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

func TestRmStopsWhatACrashedDaemonLeft(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	sh := leftover(t, root, "HU")
	r := testutil.MustRun(t, root, "rm", "HU")
	if !strings.HasPrefix(r.Stdout, `Session "HU": daemon was gone; stopped `) || !strings.HasSuffix(r.Stdout, "Session \"HU\" removed.\n") {
		t.Errorf("rm HU: stdout %q", r.Stdout)
	}
	if procs.Still(sh) {
		t.Fatalf("rm HU left its loop (pid %d) running", sh.Pid)
	}
}

func TestGcStopsWhatACrashedDaemonLeft(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	sh := leftover(t, root, "HU")
	// A process of another root that carries the same id and generation
	// (a copied environment) is not this session's.
	m, err := layout.At(root).Metadata("HU")
	if err != nil {
		t.Fatal(err)
	}
	other := testutil.Root(t)
	decoy := testutil.Command(t, other, "", "--version")
	decoy.Path, decoy.Args = "/bin/sh", []string{"sh", "-c", "read x"}
	decoy.Env = []string{"PTY_SESSION=HU", "PTY_SESSION_GENERATION=" + m.Generation, "PTY_ROOT=" + other}
	w, err := decoy.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close(); decoy.Wait() }()
	d, _ := procs.Lookup(decoy.Process.Pid)

	r := testutil.MustRun(t, root, "gc")
	if !strings.Contains(r.Stdout, "Stopped leftovers: HU (daemon was gone; ") || !strings.Contains(r.Stdout, "Removed: HU") {
		t.Errorf("gc: stdout %q", r.Stdout)
	}
	if procs.Still(sh) {
		t.Fatalf("gc removed HU but left its loop (pid %d) running", sh.Pid)
	}
	if !procs.Still(d) {
		t.Errorf("gc stopped a process of another root (pid %d)", d.Pid)
	}
}

// A session started from inside another is a session of its own: its
// daemon is reparented to the outer daemon (a subreaper), but killing the
// outer session, or stopping what its crashed daemon left, must not stop
// it.
func TestKillLeavesASessionStartedInsideAlone(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	for _, crashOuter := range []bool{false, true} {
		outer, inner := "out", "in"
		if crashOuter {
			outer, inner = "out2", "in2"
		}
		testutil.MustRun(t, root, "run", "-d", "--id", outer, "--no-display-name", "--", "sh", "-c",
			"pty run -d --id "+inner+" --no-display-name -- sleep 1000; trap '' HUP; sleep 1000")
		testutil.WaitFor(t, 10*time.Second, inner+" to run", func() bool { return statuses(t, root)[inner] == "running" })
		in := layout.At(root).Pid(inner)
		if crashOuter {
			crash(t, root, outer)
		}
		r := testutil.Run(t, root, "kill", outer)
		if r.Code != 0 && !crashOuter { // a crashed outer may have left nothing to stop
			t.Errorf("kill %s: exit %d stdout %q stderr %q", outer, r.Code, r.Stdout, r.Stderr)
		}
		if !alive(in) {
			t.Errorf("kill %s (crashed: %v) stopped the daemon of %s, a session started inside it", outer, crashOuter, inner)
		}
		if st := statuses(t, root)[inner]; st != "running" {
			t.Errorf("after kill %s, %s is %s", outer, inner, st)
		}
	}
}

// Starting a crashed session again (run -a; attach, restart, up and gc's
// respawn go the same way) stops what the old one left first: it would
// run on beside the new one, untracked.
func TestRunAgainStopsWhatACrashedDaemonLeft(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	sh := leftover(t, root, "HU")
	testutil.MustRun(t, root, "run", "-a", "-d", "--id", "HU", "--no-display-name", "--", "bash", "-c", hupProof)
	if procs.Still(sh) {
		t.Fatalf("run -a started HU again beside its old loop (pid %d)", sh.Pid)
	}
	if st := statuses(t, root)["HU"]; st != "running" {
		t.Errorf("HU is %s after run -a", st)
	}
}
