// Package list benchmarks `pty list --json` over large registries.
//
// The registry is fabricated: half the sessions are "running", each with a
// stand-in daemon (testutil.FakeDaemon: a process whose arguments prove it
// the record's daemon, which is all liveness asks), named by the record's
// daemonPid and its pid file. Starting 1,000 real daemons would measure
// the machine, not list. The other half are exited records. A running
// session costs list two reads (its record and /proc/<pid>/cmdline), an
// exited one its record.
//
// Run: go test ./bench/list -run x -bench . -benchtime 30x
//
// On a shared machine the CPU figures (cpu-ms/op, user+system) are the
// steadier ones.
package list

import (
	"encoding/json"
	"fmt"
	"github.com/ptyorg/pty/internal/testutil"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

var sizes = []int{50, 200, 1000}

// cpuTime is the CPU (user+system) used so far by this process (who =
// RUSAGE_SELF) or its waited-for children (RUSAGE_CHILDREN). On a shared
// two-core machine wall time mostly measures the neighbours; CPU time per
// op is reported next to it as the steadier figure.
func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, who int, start time.Duration) {
	b.ReportMetric(float64(cpuTime(who)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// fabricate writes n sessions, half running (pid files naming a stand-in
// daemon each: a pid is trusted only as its own session's daemon), half
// exited.
func fabricate(b *testing.B, n int) string {
	root, err := os.MkdirTemp("/tmp", "ptybench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(root) })
	created := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("s%05d", i)
		name := fmt.Sprintf("proj-%d-shell", i%37)
		m := &layout.Metadata{
			Command: "/bin/bash", Args: []string{"-l"}, DisplayCommand: "bash -l",
			Cwd: "/home/user/src/project", CreatedAt: layout.FormatTime(created.Add(time.Duration(i) * time.Second)),
			DisplayName: &name, Tags: map[string]string{"team": "core", "role": "shell"},
			Rows: 24, Cols: 80, Generation: fmt.Sprintf("%032x", i),
		}
		p := layout.At(root).Paths(id)
		if i%2 == 0 {
			pid := testutil.FakeDaemon(b, root, id, m.Generation)
			m.DaemonPid = pid
			if err := os.WriteFile(p.Pid(), []byte(strconv.Itoa(pid)), 0o600); err != nil {
				b.Fatal(err)
			}
		} else {
			code := i % 3
			m.ExitCode = &code
			m.ExitedAt = layout.FormatTime(created.Add(time.Duration(i)*time.Second + time.Minute))
			m.LastLines = []string{"$ make", "ok", "$ exit"}
		}
		data, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		// Plain writes: fsyncing 2,000 files would only slow the setup.
		if err := os.WriteFile(p.Meta(), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkList is the work of `pty list --json` inside one process:
// read the registry, derive every status, sort and encode.
func BenchmarkList(b *testing.B) {
	benchList(b, func(ss []layout.Session, now time.Time) error { return listing.WriteJSON(io.Discard, ss) })
}

// BenchmarkListText is BenchmarkList printing the text listing, which
// `pty list` prints by default.
func BenchmarkListText(b *testing.B) {
	benchList(b, func(ss []layout.Session, now time.Time) error {
		return listing.WriteText(io.Discard, ss, listing.Style{Home: "/home/user", Now: now}, "")
	})
}

func benchList(b *testing.B, write func([]layout.Session, time.Time) error) {
	for _, n := range sizes {
		root := fabricate(b, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			start := cpuTime(syscall.RUSAGE_SELF)
			defer reportCPU(b, syscall.RUSAGE_SELF, start)
			for b.Loop() {
				all, err := layout.At(root).List()
				if err != nil || len(all) != n {
					b.Fatalf("List: %d sessions, %v", len(all), err)
				}
				now := time.Now()
				if err := write(listing.Select(all, listing.Filter{}, now), now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkListExec runs the real pty-list binary, as a user or a status
// bar does: process start-up included.
func BenchmarkListExec(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "pty-list")
	build := exec.Command("go", "build", "-o", bin, "github.com/ptyorg/pty/cmd/pty-list")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build pty-list: %v\n%s", err, out)
	}
	for _, n := range sizes {
		root := fabricate(b, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			start := cpuTime(syscall.RUSAGE_CHILDREN)
			defer reportCPU(b, syscall.RUSAGE_CHILDREN, start)
			for b.Loop() {
				cmd := exec.Command(bin, "--json")
				cmd.Env = append(os.Environ(), "PTY_ROOT="+root)
				out, err := cmd.Output()
				if err != nil || len(out) < n*100 {
					b.Fatalf("pty-list --json: %v (%d bytes)", err, len(out))
				}
			}
		})
	}
}

// BenchmarkListLoadEach is the same work through one Load,
// with its own status probes, per id): the baseline ListFast is measured
// against.
func BenchmarkListLoadEach(b *testing.B) {
	root := fabricate(b, 1000)
	start := cpuTime(syscall.RUSAGE_SELF)
	defer reportCPU(b, syscall.RUSAGE_SELF, start)
	for b.Loop() {
		all, err := layout.At(root).List()
		if err != nil || len(all) != 1000 {
			b.Fatalf("List: %d sessions, %v", len(all), err)
		}
		if err := listing.WriteJSON(io.Discard, listing.Select(all, listing.Filter{}, time.Now())); err != nil {
			b.Fatal(err)
		}
	}
}
