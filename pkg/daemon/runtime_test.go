//go:build linux

package daemon_test

import (
	"bytes"
	"os"
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
