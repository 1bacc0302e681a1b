//go:build linux

package daemon_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/daemonbuild"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
)

// TestDaemonOneProcessorChildKeepsCallerEnv: the daemon runs on one
// processor (GOMAXPROCS=1, which only its environment can set before the
// runtime sizes itself) with its own GODEBUG, and the session's command
// still gets the caller's GOMAXPROCS and GODEBUG, or none when the caller
// had none.
func TestDaemonOneProcessorChildKeepsCallerEnv(t *testing.T) {
	for _, caller := range []struct{ procs, debug string }{{"", ""}, {"3", "madvdontneed=1"}} {
		for k, v := range map[string]string{"GOMAXPROCS": caller.procs, "GODEBUG": caller.debug} {
			t.Setenv(k, v) // restored after the test
			if v == "" {
				os.Unsetenv(k)
			}
		}
		root := testutil.Root(t)
		pid := start(t, root, "gmp", "sh", "-c", `echo "gmp=${GOMAXPROCS-unset} gd=${GODEBUG-unset}"; exec sleep 60`)
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		env = append([]byte{0}, env...)
		if !bytes.Contains(env, []byte("\x00GOMAXPROCS=1\x00")) {
			t.Errorf("the daemon's environment has no GOMAXPROCS=1")
		}
		if !bytes.Contains(env, []byte("\x00GODEBUG=profstackdepth=0")) {
			t.Errorf("the daemon's environment has no GODEBUG=profstackdepth=0")
		}
		want := "gmp=" + caller.procs + " gd=" + caller.debug
		if caller.procs == "" {
			want = "gmp=unset gd=unset"
		}
		var screen string
		testutil.WaitFor(t, 10*time.Second, "the command's output", func() bool {
			screen = testutil.MustRun(t, root, "peek", "--plain", "gmp").Stdout
			return strings.Contains(screen, "gmp=")
		})
		if !strings.Contains(screen, want) {
			t.Errorf("caller %+v: the command printed %q, want %q", caller, strings.TrimSpace(screen), want)
		}
		testutil.MustRun(t, root, "kill", "gmp")
	}
}

// privateBudget bounds what an idle session's daemon keeps private
// (Private_Dirty, the pages no other process shares, which is also nearly
// all of its Pss when sessions are many). A Go program that only waits
// for a signal on one processor keeps about 550 KB (500 KB built as the
// daemon is, internal/daemonbuild); the daemon kept about 635 KB when this
// bound was set (its threads, goroutines' stacks, the
// empty screen, buffers and the start-up garbage an idle daemon never
// collects: docs/contributing.md), and the bound leaves about 100 KB for
// a machine whose environment or runtime differs.
const privateBudget = 735 << 10

// greenTeaCost is what the daemon keeps more when the toolchain cannot
// build it without Go's Green Tea collector (internal/daemonbuild says
// why): about 55 KB, a page more for each span of small objects.
const greenTeaCost = 60 << 10

// idleBudget is privateBudget for the daemon this toolchain builds.
func idleBudget(t *testing.T) int {
	if daemonbuild.Env(testutil.ModuleRoot(t), os.Environ()) == nil {
		return privateBudget + greenTeaCost
	}
	return privateBudget
}

// TestIdleDaemonPrivateMemory: an idle session costs its daemon's private
// memory, and that stays within budget (the least of three daemons: see
// leastPrivate).
func TestIdleDaemonPrivateMemory(t *testing.T) {
	root := testutil.Root(t)
	least := leastPrivate(t, 3, func(i int) int {
		return start(t, root, "idle"+strconv.Itoa(i), "sleep", "60")
	})
	if budget := idleBudget(t); least > budget {
		t.Errorf("an idle daemon keeps %d KB private (Private_Dirty, the least of three), over the %d KB budget", least>>10, budget>>10)
	}
}

// attachBudget is what a client that attached, typed and left may add to
// an idle daemon's private memory for good: its goroutines' stacks, its
// baseline and the screen the typing wrote (about 85 KB when this bound
// was set). Taking more processors for as long as a client is attached
// added 200-300 KB.
const attachBudget = 120 << 10

// TestAttachedSessionStaysSmall: a session that a client attached to,
// typed in (echoed output, no flood) and left costs little more private
// memory than one never attached; the daemon stays on one processor.
func TestAttachedSessionStaysSmall(t *testing.T) {
	root := testutil.Root(t)
	least := leastPrivate(t, 2, func(i int) int {
		id := "typed" + strconv.Itoa(i)
		pid := start(t, root, id, "cat")
		c, err := client.Dial(root, id)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.AttachFrame(24, 80); err != nil {
			t.Fatal(err)
		}
		c.Raw().SetReadDeadline(time.Now().Add(20 * time.Second))
		for n := range 20 {
			line := "typed line " + strconv.Itoa(n)
			if err := c.Send([]byte(line + "\r")); err != nil {
				t.Fatal(err)
			}
			var seen strings.Builder
			for strings.Count(seen.String(), line) < 2 { // the echo and cat's copy
				f, err := c.Next()
				if err != nil {
					t.Fatalf("waiting for %q: %v", line, err)
				}
				if f.Type == proto.Data {
					seen.Write(f.Payload)
				}
			}
		}
		c.Detach()
		return pid
	})
	if budget := idleBudget(t) + attachBudget; least > budget {
		t.Errorf("a daemon a client attached to keeps %d KB private (the least of two), over the %d KB budget", least>>10, budget>>10)
	}
}

// leastPrivate runs n sessions, each made ready by session (which returns
// its daemon's pid), and returns the least Private_Dirty their daemons
// settle at. The least, because how many OS threads a daemon is left with
// depends on how its start-up's system calls overlapped (a thread is
// about 25 KB), which a loaded machine varies, while a change that costs
// every daemon memory raises the least of them too.
func leastPrivate(t *testing.T, n int, session func(i int) int) int {
	if raceEnabled {
		t.Skip("memory measurement: run without -race")
	}
	syncDaemonBinary(t)
	least := -1
	for i := range n {
		pid := session(i)
		priv := settledPrivate(t, pid)
		t.Logf("daemon %d: Private_Dirty %d KB", i, priv>>10)
		if least < 0 || priv < least {
			least = priv
		}
	}
	return least
}

// syncDaemonBinary writes the freshly built daemon back to disk: until
// then its pages are dirty in the page cache, which smaps counts as the
// process's own dirty pages.
func syncDaemonBinary(t *testing.T) {
	if f, err := os.Open(filepath.Join(testutil.BinDir(t), "pty-daemon")); err == nil {
		f.Sync()
		f.Close()
	}
}

// settledPrivate is pid's Private_Dirty once it has held still for a
// while: the metadata written, the readiness fsync and the start-up or
// detach goroutines done.
func settledPrivate(t *testing.T, pid int) int {
	priv, since := -1, time.Now()
	testutil.WaitFor(t, 10*time.Second, "the daemon's memory to settle", func() bool {
		if cur := privateDirty(t, pid); cur != priv {
			priv, since = cur, time.Now()
		}
		return time.Since(since) >= 300*time.Millisecond
	})
	return priv
}

func privateDirty(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		t.Skip("no smaps_rollup:", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Private_Dirty:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb << 10
		}
	}
	t.Fatal("no Private_Dirty in smaps_rollup")
	return 0
}

// peekedBudget is what a session peeked a couple of thousand times (a
// status bar's hour, a script's loop) may hold beyond an idle one: the
// collector's own structures once it has run (most of it), and the
// garbage of the peeks since it last handed memory back. Kept, that
// garbage grows by a few KB a peek up to the heap at which the collector
// runs by itself (4 MB), and stays.
const peekedBudget = 3 << 20

// TestPeekedSessionStaysSmall: peeks, each a connection that comes and
// goes, do not make a session's daemon grow for good: soon after a burst
// of them its private memory is back within budget.
func TestPeekedSessionStaysSmall(t *testing.T) {
	if raceEnabled {
		t.Skip("memory measurement: run without -race")
	}
	syncDaemonBinary(t)
	root := testutil.Root(t)
	pid := start(t, root, "peeked", "sh", "-c", "echo hello; exec sleep 60")
	for range 2000 {
		if _, err := client.Peek(root, "peeked", proto.PeekPlain); err != nil {
			t.Fatal(err)
		}
	}
	budget := idleBudget(t) + peekedBudget
	priv := 0
	defer func() { t.Logf("Private_Dirty %d KB", priv>>10) }()
	testutil.WaitFor(t, 10*time.Second, "the peeks' memory to be handed back", func() bool {
		priv = privateDirty(t, pid)
		return priv <= budget
	})
}
