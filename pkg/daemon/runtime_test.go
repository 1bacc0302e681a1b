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

	"github.com/ptyorg/pty/internal/testutil"
)

// TestDaemonOneProcessorChildKeepsCallerEnv: the daemon runs on one
// processor (GOMAXPROCS=1, which only its environment can set before the
// runtime sizes itself), and the session's command still gets the
// caller's GOMAXPROCS, or none when the caller had none.
func TestDaemonOneProcessorChildKeepsCallerEnv(t *testing.T) {
	for _, caller := range []string{"", "3"} {
		t.Setenv("GOMAXPROCS", caller) // restored after the test
		if caller == "" {
			os.Unsetenv("GOMAXPROCS")
		}
		root := testutil.Root(t)
		pid := start(t, root, "gmp", "sh", "-c", `echo "gmp=${GOMAXPROCS-unset}"; exec sleep 60`)
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(append([]byte{0}, env...), []byte("\x00GOMAXPROCS=1\x00")) {
			t.Errorf("the daemon's environment has no GOMAXPROCS=1")
		}
		want := "gmp=" + caller
		if caller == "" {
			want = "gmp=unset"
		}
		var screen string
		testutil.WaitFor(t, 10*time.Second, "the command's output", func() bool {
			screen = testutil.MustRun(t, root, "peek", "--plain", "gmp").Stdout
			return strings.Contains(screen, "gmp=")
		})
		if !strings.Contains(screen, want) {
			t.Errorf("caller GOMAXPROCS %q: the command printed %q, want %q", caller, strings.TrimSpace(screen), want)
		}
		testutil.MustRun(t, root, "kill", "gmp")
	}
}

// privateBudget is what an idle session's daemon may keep private
// (Private_Dirty): the Go runtime's own floor is about half a megabyte.
const privateBudget = 1 << 20

// TestIdleDaemonPrivateMemory: an idle session costs its daemon's private
// memory (what no other process shares), which stays within budget.
func TestIdleDaemonPrivateMemory(t *testing.T) {
	// A freshly built binary is dirty in the page cache, which smaps
	// counts as the process's own dirty pages until it is written back.
	if f, err := os.Open(filepath.Join(testutil.BinDir(t), "pty-daemon")); err == nil {
		f.Sync()
		f.Close()
	}
	root := testutil.Root(t)
	pid := start(t, root, "idle", "sleep", "60")
	// Idle: the metadata written, the readiness fsync and the start-up
	// goroutines done, so the figure holds still.
	priv, since := -1, time.Now()
	testutil.WaitFor(t, 10*time.Second, "the daemon's memory to settle", func() bool {
		if cur := privateDirty(t, pid); cur != priv {
			priv, since = cur, time.Now()
		}
		return time.Since(since) >= 300*time.Millisecond
	})
	t.Logf("idle daemon: Private_Dirty %d KB", priv>>10)
	if priv > privateBudget {
		t.Errorf("idle daemon keeps %d KB private (Private_Dirty), over the %d KB budget", priv>>10, privateBudget>>10)
	}
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
