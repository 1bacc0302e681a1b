package reconcile_test

import (
	"context"
	"fmt"
	"github.com/ptyorg/pty/internal/testutil"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/reconcile"
)

// BenchmarkPassNothingToDo is a pass over n running sessions (half of
// them permanent, with tags and a cwd to stat) where nothing needs doing:
// the steady state of a 30 s timer. The "daemons" are stand-ins that
// the fabricated pid files point at, one per session, since a pid counts
// only as its own session's daemon.
func BenchmarkPassNothingToDo(b *testing.B) {
	for _, n := range []int{100, 1000, 4000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			root := fabricate(b, n)
			o := reconcile.DefaultOptions(root)
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				res, err := reconcile.Run(context.Background(), o)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Actions) != 0 {
					b.Fatalf("a quiet registry produced actions: %+v", res.Actions[0])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/session")
			// CPU time is the figure to compare on a shared machine, where
			// wall time mostly measures the other processes.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fabricate(b *testing.B, n int) string {
	b.Helper()
	root, err := os.MkdirTemp("/tmp", "ptb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	cwd := b.TempDir()
	for i := range n {
		id := fmt.Sprintf("s%05d", i)
		name := "bench-" + id
		m := &layout.Metadata{
			Command:        "/bin/sleep",
			Args:           []string{"600"},
			DisplayCommand: "sleep 600",
			Cwd:            cwd,
			CreatedAt:      layout.Now(),
			Generation:     fmt.Sprintf("%032x", i),
			DisplayName:    &name,
			Rows:           24,
			Cols:           80,
			Tags:           map[string]string{"project": "bench", "idx": strconv.Itoa(i)},
			LastLines:      []string{"a line of output", "another"},
		}
		if i%2 == 0 {
			m.Tags["strategy"] = "permanent"
		}
		testutil.WriteRecord(b, root, id, m)
		pid := strconv.Itoa(testutil.FakeDaemon(b, root, id, m.Generation))
		if err := os.WriteFile(filepath.Join(root, id+".pid"), []byte(pid), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, id+".events.jsonl"), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return root
}
