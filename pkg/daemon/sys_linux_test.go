package daemon

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestResourcesOf: the resident size is the process's VmRSS and the CPU
// share a sane percentage, for this process (which has burnt some CPU
// by the time it is asked) and for one that is gone; and a reply costs
// the daemon's heap the result and the path only.
func TestResourcesOf(t *testing.T) {
	for i := 0; i < 2_000_000; i++ { // some CPU time to see
		_ = strconv.Itoa(i)
	}
	r := resourcesOf(os.Getpid())
	if r == nil {
		t.Fatal("no resources for this process")
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var want int64
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			want, _ = strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	// Resident memory moves a little between the two reads.
	if r.RssKb <= 0 || r.RssKb < want/2 || r.RssKb > want*2 {
		t.Errorf("RssKb = %d, VmRSS says %d", r.RssKb, want)
	}
	if r.CPUPercent < 0 || r.CPUPercent > 100*float64(64) {
		t.Errorf("CPUPercent = %v", r.CPUPercent)
	}
	if r := resourcesOf(1 << 30); r != nil {
		t.Errorf("resources of a process that is not there: %+v", r)
	}
	if n := testing.AllocsPerRun(20, func() { resourcesOf(os.Getpid()) }); n > 6 {
		t.Errorf("resourcesOf makes %v allocations, want the result and its paths only", n)
	}
}
