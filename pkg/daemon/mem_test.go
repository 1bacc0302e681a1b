//go:build linux

package daemon_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// TestLastOutputAtPersisted: output is recorded in the metadata soon after
// it happens, without any client or exit to prompt it (recordLoop only runs
// a timer while there is output to account for).
func TestLastOutputAtPersisted(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "lo", "sh", "-c", "read x; echo $x; exec sleep 60")
	if m, _ := layout.At(root).Metadata("lo"); m.LastOutputAt != "" {
		t.Fatalf("lastOutputAt %q before any output", m.LastOutputAt)
	}
	testutil.MustRun(t, root, "send", "lo", "hello\r")
	testutil.WaitFor(t, 5*time.Second, "lastOutputAt in the metadata", func() bool {
		m, err := layout.At(root).Metadata("lo")
		return err == nil && m.LastOutputAt != ""
	})
}

// TestOrphansReaped: the daemon reaps on SIGCHLD, so an orphan that the
// session's tree leaves to it (it is the subreaper) does not stay a
// zombie, and the session's own exit is still seen.
func TestOrphansReaped(t *testing.T) {
	t.Setenv("PTY_REAP_ON_EXIT", "false") // keep the record to read the exit code from
	root := testutil.Root(t)
	pid := start(t, root, "orph", "sh", "-c", "(sleep 1 &); read x; exit 3")
	testutil.WaitFor(t, 10*time.Second, "the orphan to be handed to the daemon", func() bool {
		return len(childrenOf(pid)) == 2
	})
	testutil.WaitFor(t, 10*time.Second, "the orphan to be reaped", func() bool {
		kids := childrenOf(pid)
		return len(kids) == 1 && procState(kids[0]) != "Z"
	})
	testutil.MustRun(t, root, "send", "orph", "\r")
	testutil.WaitFor(t, 10*time.Second, "the exit to be recorded", func() bool {
		m, err := layout.At(root).Metadata("orph")
		return err == nil && m.ExitCode != nil && *m.ExitCode == 3
	})
}

func childrenOf(ppid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			out = append(out, p)
		}
	}
	return out
}

func procState(pid int) string {
	if f := statFields(pid); len(f) > 0 {
		return f[0]
	}
	return ""
}

// statFields are the fields of /proc/pid/stat after the command name.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		return strings.Fields(s[i+1:])
	}
	return nil
}

// statusKB reads a "Name:   123 kB" line of /proc/pid/status.
func statusKB(pid int, name string) float64 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseFloat(f[0], 64)
				return n
			}
		}
	}
	return 0
}

// BenchmarkDaemonRSS reports a daemon's resident memory idle and after
// 20,000 lines of output in a 50x200 session (bench -only rss's workload),
// once its memory has settled. Run with -benchtime=1x: each iteration is
// a whole session.
//
//	go test -run '^$' -bench DaemonRSS -benchtime=1x ./pkg/daemon/
func BenchmarkDaemonRSS(b *testing.B) {
	root := testutil.Root(b)
	var idle, anon, file, total float64
	for i := range b.N {
		id := "idle" + strconv.Itoa(i)
		testutil.MustRun(b, root, "run", "-d", "--id", id, "--", "sleep", "600")
		idlePid := layout.At(root).Pid(id)
		id = "rss" + strconv.Itoa(i)
		testutil.MustRun(b, root, "run", "-d", "--id", id, "--rows", "50", "--cols", "200", "--", "sh", "-c",
			"seq 1 20000 | sed 's/$/ some log line text to make it eighty columns wide or so, like a real log/'; exec sleep 600")
		pid := layout.At(root).Pid(id)
		testutil.WaitFor(b, 30*time.Second, "the last line on screen", func() bool {
			s, err := client.Peek(root, id, proto.PeekPlain)
			return err == nil && strings.Contains(string(s.Screen), "20000 some log")
		})
		settled(b, pid)
		settled(b, idlePid)
		idle = statusKB(idlePid, "VmRSS")
		anon, file, total = statusKB(pid, "RssAnon"), statusKB(pid, "RssFile"), statusKB(pid, "VmRSS")
		testutil.MustRun(b, root, "kill", id)
		testutil.MustRun(b, root, "kill", "idle"+strconv.Itoa(i))
	}
	b.ReportMetric(idle, "idle-rss-KB")
	b.ReportMetric(total, "rss-KB")
	b.ReportMetric(anon, "anon-KB")
	b.ReportMetric(file, "file-KB")
}

// settled waits until pid's RSS has not changed for half a second.
func settled(b *testing.B, pid int) {
	last, same := -1.0, 0
	testutil.WaitFor(b, 10*time.Second, "the daemon's memory to settle", func() bool {
		v := statusKB(pid, "VmRSS")
		if v == last {
			same++
		} else {
			last, same = v, 0
		}
		time.Sleep(100 * time.Millisecond)
		return same >= 5
	})
}
