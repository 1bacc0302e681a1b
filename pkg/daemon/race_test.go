//go:build race

package daemon_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// TestDaemonHasNoDataRaces runs a race-enabled pty-daemon (the daemon is a
// separate process, so `go test -race` alone does not instrument it)
// through attaches, resizes, peeks, input and a kill while it streams
// output, and fails on any race report.
func TestDaemonHasNoDataRaces(t *testing.T) {
	bin := testutil.BinDir(t)
	dir := t.TempDir()
	for _, b := range []string{"pty", "pty-run", "pty-peek"} {
		data, err := os.ReadFile(filepath.Join(bin, b))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, b), data, 0o755)
	}
	build := exec.Command("go", "build", "-race", "-o", dir+"/", "./cmd/pty-daemon")
	build.Dir = testutil.ModuleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build race daemon: %v\n%s", err, out)
	}
	root := testutil.Root(t)
	logs := t.TempDir()
	cmd := exec.Command(filepath.Join(dir, "pty-run"), "-d", "--id", "r", "--", "sh", "-c", "while :; do seq 1 3000; printf '\\007\\033]2;t\\007'; sleep 0.01; done")
	cmd.Env = append(testutil.Env(t, root), "GORACE=log_path="+logs+"/race halt_on_error=0")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	m, err := layout.At(root).Metadata("r")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				c, err := client.Dial(root, "r")
				if err != nil {
					t.Error(err)
					return
				}
				c.AttachFrame(20+i, 70+j)
				c.WriteFrame(proto.Resize, proto.Size(30-j, 90-i))
				c.Send([]byte("x"))
				c.Status(5 * time.Second)
				c.Peek(proto.PeekFull)
				c.Detach()
				c.Close()
				client.Peek(root, "r", proto.PeekPlain)
			}
		}()
	}
	wg.Wait()
	syscall.Kill(m.DaemonPid, syscall.SIGTERM)
	testutil.WaitFor(t, 10*time.Second, "the daemon to exit", func() bool { return !proc.Alive(m.DaemonPid) })
	reports, _ := filepath.Glob(filepath.Join(logs, "race*"))
	for _, r := range reports {
		b, _ := os.ReadFile(r)
		t.Errorf("race report %s:\n%s", r, b)
	}
}

const raceEnabled = true
