package run

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// seqLines is what `seq from to` prints, without the last newline.
func seqLines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// seq200 prints 200 lines and stays; on a 24-row screen the first 177
// scroll off into the scrollback.
var seq200 = []string{"--rows", "24", "--cols", "80", "--", "sh", "-c", "seq 1 200; exec sleep 100"}

// waitFull waits until `pty peek --plain --full` of id (scrollback, then
// screen) is exactly want.
func waitFull(t *testing.T, root, id, want string) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, id+"'s scrollback and screen", func() (bool, string) {
		got := strings.TrimRight(testutil.Run(t, root, "peek", "--plain", "--full", id).Stdout, "\n")
		lines := strings.Split(got, "\n")
		return got == want, fmt.Sprintf("%d lines, %q to %q", len(lines), lines[0], lines[len(lines)-1])
	})
}

func recordScrollback(t *testing.T, root, id string) *int {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.Scrollback
}

// --scrollback N keeps exactly the last N lines that scrolled off, is
// stored in the record, and a restart keeps it.
func TestRunScrollbackFlag(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, append([]string{"run", "--scrollback", "50", "-d", "--id", "s"}, seq200...)...)
	// 177 lines scrolled off; the last 50 of them are 128 to 177.
	waitFull(t, root, "s", seqLines(128, 200))
	if n := recordScrollback(t, root, "s"); n == nil || *n != 50 {
		t.Fatalf("record's scrollback = %v, want 50", n)
	}
	raw, err := client.Status(root, "s", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proto.ParseStatus(raw); err != nil || st.Terminal.ScrollbackCapacity != 24+50 {
		t.Errorf("status %s (%v): want a capacity of 24 rows + 50 lines", raw, err)
	}

	gen := func() string { m, _ := layout.At(root).Metadata("s"); return m.Generation }
	before := gen()
	testutil.MustRun(t, root, "restart", "-y", "s")
	if gen() == before {
		t.Fatal("restart kept the generation")
	}
	waitFull(t, root, "s", seqLines(128, 200))
	if n := recordScrollback(t, root, "s"); n == nil || *n != 50 {
		t.Fatalf("record's scrollback after restart = %v, want 50", n)
	}

	// -a on the ended session keeps it too, unless the command line
	// says otherwise.
	testutil.MustRun(t, root, "kill", "s")
	testutil.MustRun(t, root, append([]string{"run", "-a", "-d", "--id", "s"}, seq200...)...)
	waitFull(t, root, "s", seqLines(128, 200))
	testutil.MustRun(t, root, "kill", "s")
	testutil.MustRun(t, root, append([]string{"run", "-a", "-d", "--id", "s", "--scrollback", "10"}, seq200...)...)
	waitFull(t, root, "s", seqLines(168, 200))
}

// PTY_SCROLLBACK gives a new session its scrollback when the command line
// does not; --scrollback wins over it; 0 keeps none; without either the
// default keeps all 177 lines and writes nothing to the record.
func TestRunScrollbackEnv(t *testing.T) {
	root := testutil.Root(t)
	for _, c := range []struct {
		id   string
		env  []string
		args []string
		from int  // the first line peek --full shows
		rec  *int // the record's scrollback
	}{
		{"env", []string{"PTY_SCROLLBACK=50"}, nil, 128, ptr(50)},
		{"flag-wins", []string{"PTY_SCROLLBACK=50"}, []string{"--scrollback", "20"}, 158, ptr(20)},
		{"none", []string{"PTY_SCROLLBACK=0"}, nil, 178, ptr(0)},
		{"default", nil, nil, 1, nil},
	} {
		args := append(append([]string{"run", "-d", "--id", c.id}, c.args...), seq200...)
		if r := runEnv(t, root, c.env, args...); r.Code != 0 {
			t.Fatalf("%s: %+v", c.id, r)
		}
		waitFull(t, root, c.id, seqLines(c.from, 200))
		got := recordScrollback(t, root, c.id)
		if (got == nil) != (c.rec == nil) || got != nil && *got != *c.rec {
			t.Errorf("%s: record's scrollback = %v, want %v", c.id, fmtPtr(got), fmtPtr(c.rec))
		}
	}
}

func ptr(n int) *int { return &n }

func fmtPtr(p *int) string {
	if p == nil {
		return "absent"
	}
	return strconv.Itoa(*p)
}

// A scrollback out of range, from the flag or the environment, is refused
// with one line saying what is allowed, and nothing is created.
func TestRunRejectsBadScrollback(t *testing.T) {
	root := testutil.Root(t)
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--scrollback", "1000001"}, "--scrollback 1000001 is out of range: give a number of lines from 0 to 1000000"},
		{nil, []string{"--scrollback", "-1"}, "--scrollback -1 is out of range"},
		{[]string{"PTY_SCROLLBACK=lots"}, nil, "PTY_SCROLLBACK=lots is not a scrollback length: give a number of lines from 0 to 1000000"},
		{[]string{"PTY_SCROLLBACK=2000000"}, nil, "PTY_SCROLLBACK=2000000 is not a scrollback length"},
	} {
		args := append(append([]string{"run", "-d", "--id", "bad"}, c.args...), "--", "sleep", "30")
		r := runEnv(t, root, c.env, args...)
		if r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, c.want) || r.Stdout != "" {
			t.Errorf("%v %v: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", c.env, c.args, r.Code, r.Stdout, r.Stderr, c.want)
		}
		if f := testutil.DirNames(t, root); len(f) != 0 {
			t.Fatalf("%v %v left files: %v", c.env, c.args, f)
		}
	}
}

// pssKB is the Pss of pid from /proc/PID/smaps_rollup, in kB.
func pssKB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		t.Fatalf("daemon %d: %v", pid, err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Pss:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	t.Fatalf("no Pss in /proc/%d/smaps_rollup", pid)
	return 0
}

// TestScrollbackMemoryBound: a session allowed the longest scrollback, at
// the widest size, is sent 10,000 lines of 100,000 characters (a
// gigabyte; a million rows at 1000 columns). The daemon keeps within
// the scrollback's 64 MiB and its own small needs, where the rows alone
// would take a gigabyte; it runs under a 2 GiB address-space limit, so a
// regression kills it rather than the machine. The newest lines are the
// ones kept.
func TestScrollbackMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("sends a gigabyte through a session")
	}
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("needs /proc/PID/smaps_rollup to read the daemon's memory")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		testutil.MissingTool(t, "prlimit(1)")
	}
	root := testutil.Root(t)
	script := `yes "$(printf '%0100000d' 0)" | head -n 10000; echo end-of-flood; exec sleep 300`
	run := testutil.Command(t, root, "run", "-d", "--id", "big", "--scrollback", "1000000", "--rows", "24", "--cols", "1000",
		"--", "sh", "-c", script)
	run.Args = append([]string{prlimit, "--as=2147483648", "--"}, run.Args...)
	run.Path = prlimit
	if r := testutil.RunCmd(t, run); r.Code != 0 {
		t.Fatalf("pty run: %+v", r)
	}
	pid := daemonPid(t, root, "big")
	peak := 0
	testutil.WaitFor(t, 5*time.Minute, "the end of the flood on the screen", func() bool {
		if !proc.Alive(pid) {
			t.Fatalf("the daemon died during the flood (peak Pss %d kB)", peak)
		}
		peak = max(peak, pssKB(t, pid))
		return strings.Contains(peekPlain(t, root, "big"), "end-of-flood")
	})
	pss := pssKB(t, pid)
	peak = max(peak, pss)
	t.Logf("daemon Pss %d kB after the flood, %d kB at most while it ran", pss, peak)
	if limit := 160 << 10; peak > limit {
		t.Errorf("daemon Pss reached %d kB, want at most %d kB (a 64 MiB scrollback and the daemon)", peak, limit)
	}
	// What the scrollback kept is the end of the flood: whole rows of
	// zeros, the last of them just above the marker.
	r := testutil.Run(t, root, "stats", "--json", "big")
	st, err := proto.ParseStatus([]byte(r.Stdout))
	if err != nil {
		t.Fatalf("stats: %v: %+v", err, r)
	}
	kept := st.Terminal.ScrollbackUsed - 24
	if kept < 50000 || kept > 66000 {
		t.Errorf("the scrollback keeps %d lines of 1000 columns, want the 64 MiB's worth (about 60,000)", kept)
	}
	full := testutil.Run(t, root, "peek", "--plain", "--full", "big").Stdout
	zeros := strings.Repeat("0", 1000)
	if !strings.Contains(full, fmt.Sprintf("%s\nend-of-flood", zeros)) {
		t.Errorf("peek --full does not end with the flood's last row and the marker: ...%q", full[max(len(full)-2100, 0):])
	}
}
