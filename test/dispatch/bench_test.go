package dispatch

import (
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// BenchmarkVersion measures a whole "pty --version" process: fork, exec,
// Go runtime start and print. It reports the median as well as the mean,
// since the target (under 5 ms) is about the typical invocation.
func BenchmarkVersion(b *testing.B) {
	bin := filepath.Join(testutil.BinDir(b), "pty")
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := exec.Command(bin, "--version").Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkDispatch measures "pty <sub>" through the dispatcher to a
// plugin that exits at once: the dispatcher's own cost plus one exec.
func BenchmarkDispatch(b *testing.B) {
	bin := filepath.Join(testutil.BinDir(b), "pty")
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		start := time.Now()
		cmd := exec.Command(bin, "nosuchcommand")
		cmd.Run()
		times = append(times, time.Since(start))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}
