package term_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// vmKB reads a "VmXxx:" line of /proc/<pid>/status, in kB.
func vmKB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("daemon %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestDaemonSurvivesCombiningFlood runs a real session whose program
// prints a letter and 100,000 combining marks (200 KB), which once made the
// daemon's emulator want about 20 GB. The daemon runs under a 2 GiB
// address-space limit, so a regression kills it rather than the machine.
func TestDaemonSurvivesCombiningFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands and runs a daemon")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the daemon's memory")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("needs prlimit(1)")
	}
	root := testutil.Root(t)
	payload := filepath.Join(t.TempDir(), "marks")
	if err := os.WriteFile(payload, []byte("a"+strings.Repeat("\u0301", 100000)+"\r\nafter-marks\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := testutil.Command(t, root, "run", "-d", "--id", "m", "--rows", "10", "--cols", "40", "--",
		"sh", "-c", "cat "+payload+"; exec sleep 60")
	run.Args = append([]string{prlimit, "--as=2147483648", "--"}, run.Args...)
	run.Path = prlimit
	if r := testutil.RunCmd(t, run); r.Code != 0 {
		t.Fatalf("pty run: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(root, "m.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))

	var view string
	testutil.WaitFor(t, 30*time.Second, "the output after the marks in pty peek", func() bool {
		r := testutil.Run(t, root, "peek", "--plain", "m")
		view = r.Stdout
		return r.Code == 0 && strings.Contains(view, "after-marks")
	})
	first := strings.SplitN(view, "\n", 2)[0]
	if !strings.HasPrefix(first, "a\u0301") || len(first) > 32 {
		t.Errorf("first row %q (%d bytes), want the letter and at most 32 bytes of it", first, len(first))
	}
	// The daemon is alive and still serves the session.
	if r := testutil.Run(t, root, "send", "m", "x"); r.Code != 0 {
		t.Fatalf("pty send after the flood: %+v", r)
	}
	if hwm := vmKB(t, pid, "VmHWM"); hwm > 100<<10 {
		t.Errorf("daemon peaked at %d kB resident, want at most 100 MB", hwm)
	}
}
