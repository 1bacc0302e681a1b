package recover

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// backWithin bounds how long a session may take to be usable again.
const backWithin = 10 * time.Second

// counter is a session whose program prints its pid, then c1, c2, ...:
// gaps in its scrollback would be output lost.
type counter struct {
	root, id      string
	daemon, prog  int
	generation    string
	lastSeen      int
	startedAsProc string // the program's /proc start field, to tell it is the same process
}

const counterScript = `echo "pid=$$"; i=0; while :; do i=$((i+1)); echo "c$i"; sleep 0.1; done`

func startCounter(t *testing.T, root, id string) *counter {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", counterScript)
	c := &counter{root: root, id: id}
	testutil.WaitFor(t, 30*time.Second, id+" to run and count", func() bool {
		s, err := layout.At(root).Load(id)
		if err != nil || s.Status != layout.Running {
			return false
		}
		c.daemon, c.generation = s.Pid, s.Meta.Generation
		lines, ok := c.peekLines(t)
		if !ok {
			return false
		}
		for _, l := range lines {
			if v, ok := strings.CutPrefix(l, "pid="); ok {
				c.prog, _ = strconv.Atoi(v)
			}
		}
		return c.prog > 0 && c.count(lines) >= 3
	})
	c.startedAsProc = procStart(c.prog)
	if c.startedAsProc == "" {
		t.Fatalf("the program (pid %d) is not running", c.prog)
	}
	return c
}

// procStart is field 22 of /proc/PID/stat, the start time: "" when gone.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 20 || f[0] == "Z" {
		return ""
	}
	return f[19]
}

func (c *counter) peekLines(t *testing.T) ([]string, bool) {
	r := testutil.Run(t, c.root, "peek", "--plain", "--full", c.id)
	if r.Code != 0 {
		return nil, false
	}
	return strings.Split(r.Stdout, "\n"), true
}

var countRE = regexp.MustCompile(`^c(\d+)$`)

// count checks that the counter's lines are c1, c2, ... without a gap and
// returns the last, or 0 when there is a gap.
func (c *counter) count(lines []string) int {
	n := 0
	for _, l := range lines {
		m := countRE.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		v, _ := strconv.Atoi(m[1])
		if v != n+1 {
			return 0
		}
		n = v
	}
	return n
}

// checkBack waits until list, peek and attach work again, and checks the
// session is the same: its daemon's pid, its program (same pid and start
// time) and its output without a gap, past what was seen before.
func (c *counter) checkBack(t *testing.T) {
	t.Helper()
	before := c.lastSeen
	testutil.WaitForState(t, backWithin, c.id+" to be listed as running with daemon pid "+strconv.Itoa(c.daemon), func() (bool, string) {
		r := testutil.Run(t, c.root, "list", "--json")
		var rows []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Pid    int    `json:"pid"`
		}
		json.Unmarshal([]byte(r.Stdout), &rows)
		for _, row := range rows {
			if row.Name == c.id {
				return row.Status == "running" && row.Pid == c.daemon, r.Stdout
			}
		}
		return false, r.Stdout + r.Stderr
	})
	var lines []string
	testutil.WaitForState(t, backWithin, "peek of "+c.id+" to show the counter going on, without a gap", func() (bool, string) {
		var ok bool
		lines, ok = c.peekLines(t)
		return ok && c.count(lines) > before, strings.Join(lines, "|")
	})
	n := c.count(lines)
	u := testutil.StartTerminal(t, testutil.Command(t, c.root, "attach", c.id), 24, 80)
	waitCountAbove(t, u, n, "attach to "+c.id+" to show the counter going on")
	u.Write(t, "\x1c") // Ctrl+\ detaches
	if code := u.Exit(t); code != 0 {
		t.Errorf("attach exited %d after detaching", code)
	}
	if got := procStart(c.prog); got != c.startedAsProc {
		t.Errorf("the program (pid %d) is not the same process: start %q, was %q", c.prog, got, c.startedAsProc)
	}
	if pid := layout.At(c.root).Pid(c.id); pid != c.daemon {
		t.Errorf("pid file names %d, want the same daemon %d", pid, c.daemon)
	}
	lines, _ = c.peekLines(t)
	if c.count(lines) == 0 {
		t.Errorf("the counter's output has a gap: %q", lines)
	}
	c.lastSeen = c.count(lines)
}

// waitCountAbove waits until the terminal shows a counter line past n.
func waitCountAbove(t *testing.T, u *testutil.Terminal, n int, what string) {
	t.Helper()
	testutil.WaitForState(t, backWithin, what, func() (bool, string) {
		for _, l := range u.Lines() {
			if m := countRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
				if v, _ := strconv.Atoi(m[1]); v > n {
					return true, ""
				}
			}
		}
		return false, strings.Join(u.Lines(), "|")
	})
}

// republishedEvent reports whether the session's log has session_republished
// naming file.
func republishedEvent(t *testing.T, root, id, file string) bool {
	evs, _ := layout.At(root).Events(id)
	for _, e := range evs {
		if e.Type == layout.EventSessionRepublished {
			b, _ := json.Marshal(e.Fields["files"])
			if strings.Contains(string(b), `"`+file+`"`) {
				return true
			}
		}
	}
	return false
}

func TestDeletedSocketComesBack(t *testing.T) {
	root := testutil.Root(t)
	c := startCounter(t, root, "sock")
	// A client attached before the socket goes stays attached.
	early := testutil.StartTerminal(t, testutil.Command(t, root, "attach", "sock"), 24, 80)
	early.WaitOutput(t, "c")
	if err := os.Remove(filepath.Join(root, "sock.sock")); err != nil {
		t.Fatal(err)
	}
	c.checkBack(t)
	if !republishedEvent(t, root, "sock", "socket") {
		t.Error("no session_republished event naming the socket")
	}
	waitCountAbove(t, early, c.lastSeen, "the client attached before to go on receiving output")
}

func TestDeletedPidFileComesBack(t *testing.T) {
	root := testutil.Root(t)
	c := startCounter(t, root, "pidf")
	if err := os.Remove(filepath.Join(root, "pidf.pid")); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, backWithin, "the pid file to be written again", func() bool {
		return layout.At(root).Pid("pidf") == c.daemon
	})
	c.checkBack(t)
	if !republishedEvent(t, root, "pidf", "pid") {
		t.Error("no session_republished event naming the pid file")
	}
}

func TestDeletedRecordComesBack(t *testing.T) {
	root := testutil.Root(t)
	c := startCounter(t, root, "rec")
	// A change made after the start is part of the record the daemon
	// publishes again.
	testutil.MustRun(t, root, "tag", "rec", "team=blue")
	testutil.MustRun(t, root, "rename", "rec", "counter")
	waitRecordNoted(t, c)
	if err := os.Remove(filepath.Join(root, "rec.json")); err != nil {
		t.Fatal(err)
	}
	c.checkBack(t)
	m, err := layout.At(root).Metadata("rec")
	if err != nil {
		t.Fatal(err)
	}
	if m.Generation != c.generation || m.Tags["team"] != "blue" || m.DisplayName == nil || *m.DisplayName != "counter" {
		t.Errorf("record published again: generation %q tags %v name %v; want %q, team=blue, counter", m.Generation, m.Tags, m.DisplayName, c.generation)
	}
	if !republishedEvent(t, root, "rec", "record") {
		t.Error("no session_republished event naming the record")
	}
}

// waitRecordNoted waits until the daemon holds the record now on disk
// open: the copy it publishes again is the newest.
func waitRecordNoted(t *testing.T, c *counter) {
	t.Helper()
	var st syscall.Stat_t
	testutil.WaitFor(t, backWithin, "the daemon to hold the current record", func() bool {
		if syscall.Stat(filepath.Join(c.root, c.id+".json"), &st) != nil {
			return false
		}
		fds, _ := filepath.Glob("/proc/" + strconv.Itoa(c.daemon) + "/fd/*")
		for _, fd := range fds {
			var fst syscall.Stat_t
			if syscall.Stat(fd, &fst) == nil && fst.Ino == st.Ino && fst.Dev == st.Dev {
				return true
			}
		}
		return false
	})
}

// deleteRoot removes the root as a user's rm -rf does, again until it is
// gone: a live daemon may have been creating a file in it (an event, a
// record's temporary) while the first pass emptied it.
func deleteRoot(t *testing.T, root string) {
	t.Helper()
	testutil.WaitForState(t, backWithin, "the root to be deleted", func() (bool, string) {
		if err := os.RemoveAll(root); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
}

func TestDeletedRootComesBackWithRecoverAll(t *testing.T) {
	root := testutil.Root(t)
	a := startCounter(t, root, "one")
	b := startCounter(t, root, "two")
	testutil.MustRun(t, root, "tag", "two", "keep=1")
	waitRecordNoted(t, b)
	deleteRoot(t, root)
	// Nothing is recreated behind the user's back, not even in a new
	// directory of the same name made at once (as the next pty run
	// would): the daemons look a second after their files go, so a
	// window of three seconds sees whether they publish themselves.
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		if names := testutil.DirNames(t, root); len(names) > 0 {
			t.Fatalf("after the root was removed, the daemons published %v unasked", names)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r := testutil.Run(t, root, "recover", "--all")
	if r.Code != 0 {
		t.Fatalf("recover --all: exit %d, %q %q", r.Code, r.Stdout, r.Stderr)
	}
	for _, id := range []string{"one", "two"} {
		if !strings.Contains(r.Stdout, "Recovered: "+id+" ") {
			t.Errorf("recover --all says %q, want a line for %s", r.Stdout, id)
		}
	}
	fi, err := os.Stat(root)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("root after recover: %v, %v; want mode 0700", fi, err)
	}
	a.checkBack(t)
	b.checkBack(t)
	if m, err := layout.At(root).Metadata("two"); err != nil || m.Tags["keep"] != "1" {
		t.Errorf("two's record after recover: %v %v, want its keep=1", m, err)
	}
	// Everything is published: nothing more to recover.
	r = testutil.Run(t, root, "recover", "--all")
	if r.Code != 1 || r.Stdout != "" || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("recover --all again: exit %d, stdout %q, stderr %q; want exit 1 and one line", r.Code, r.Stdout, r.Stderr)
	}
}

func TestRecoverWithNothingToRecover(t *testing.T) {
	root := testutil.Root(t)
	for _, args := range [][]string{{"--all"}, {"nosuch"}} {
		r := testutil.Run(t, root, append([]string{"recover"}, args...)...)
		if r.Code != 1 || r.Stdout != "" || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "nothing to recover") {
			t.Errorf("recover %v in an empty root: exit %d, stdout %q, stderr %q; want exit 1 and one line saying nothing to recover", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	gone := filepath.Join(root, "gone")
	if r := testutil.Run(t, gone, "recover", "--all"); r.Code != 1 || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("recover --all of a missing root: exit %d, %q; want exit 1 and one line", r.Code, r.Stderr)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("recover with nothing to recover created the root: %v", err)
	}
}

// A process that is not a verified daemon of this root never receives
// recover's signal. The stand-ins are shells, which SIGUSR1 kills.
func TestRecoverSignalsOnlyVerifiedDaemonsOfItsRoot(t *testing.T) {
	root := testutil.Root(t)
	other := testutil.Root(t)
	c := startCounter(t, root, "real")
	waitRecordNoted(t, c)
	otherRoot := testutil.FakeDaemon(t, other, "real", c.generation) // another root's
	prefix := testutil.FakeDaemon(t, root+"x", "real", c.generation) // a root whose name extends ours
	deleteRoot(t, root)
	// The session's program carries the session's identity in its
	// environment, not in its arguments: it is no daemon.
	r := testutil.Run(t, root, "recover", "--all")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Recovered: real ") {
		t.Fatalf("recover --all: exit %d, %q %q", r.Code, r.Stdout, r.Stderr)
	}
	c.checkBack(t)
	for what, pid := range map[string]int{"another root's daemon": otherRoot, "a daemon of a root named like ours": prefix} {
		if procStart(pid) == "" {
			t.Errorf("%s (pid %d) was signalled", what, pid)
		}
	}
}

// A session whose id another generation has taken while its daemon's
// files were gone is not written over: the old daemon stays unpublished
// (orphaned) and recover says so.
func TestAnotherGenerationKeepsTheID(t *testing.T) {
	root := testutil.Root(t)
	old := startCounter(t, root, "dup")
	deleteRoot(t, root)
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	// A new session of the same id in the new root.
	testutil.MustRun(t, root, "run", "-d", "--id", "dup", "--", "sh", "-c", "echo new; exec sleep 600")
	var fresh layout.Session
	testutil.WaitFor(t, 30*time.Second, "the new dup to run", func() bool {
		s, err := layout.At(root).Load("dup")
		fresh = s
		return err == nil && s.Status == layout.Running
	})
	if fresh.Meta.Generation == old.generation {
		t.Fatal("the new session has the old generation")
	}
	r := testutil.Run(t, root, "recover", "dup")
	if r.Code != 1 || !strings.Contains(r.Stderr, "another session's now") || !strings.Contains(r.Stderr, strconv.Itoa(old.daemon)) {
		t.Errorf("recover dup: exit %d, %q %q; want exit 1 naming the old daemon %d", r.Code, r.Stdout, r.Stderr, old.daemon)
	}
	// The old daemon, asked anyway, sees the id taken and gives up its
	// watch (its inotify descriptor goes) without writing.
	if err := syscall.Kill(old.daemon, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, backWithin, "the old daemon to give up publishing, or to write over the new session", func() bool {
		m, err := layout.At(root).Metadata("dup")
		return !hasInotify(old.daemon) || err != nil || m.Generation != fresh.Meta.Generation ||
			layout.At(root).Pid("dup") != fresh.Pid || republishedEvent(t, root, "dup", "record")
	})
	s, err := layout.At(root).Load("dup")
	if err != nil || s.Meta.Generation != fresh.Meta.Generation || s.Pid != fresh.Pid || s.Status != layout.Running {
		t.Errorf("dup after the old daemon looked: %+v %v; want the new generation %s, pid %d", s, err, fresh.Meta.Generation, fresh.Pid)
		if s.Meta != nil {
			b, _ := json.Marshal(s.Meta)
			t.Logf("record: %s", b)
		}
	}
	if layout.At(root).Pid("dup") != fresh.Pid {
		t.Errorf("pid file names %d, want the new daemon %d", layout.At(root).Pid("dup"), fresh.Pid)
	}
	if p := testutil.Run(t, root, "peek", "--plain", "--wait", "new", "-t", "10", "dup"); p.Code != 0 || !strings.Contains(p.Stdout, "new") {
		t.Errorf("peek dup reaches %q, want the new session", p.Stdout)
	}
	if republishedEvent(t, root, "dup", "record") || republishedEvent(t, root, "dup", "socket") {
		t.Error("the old daemon wrote session_republished into the new session's log")
	}
	if procStart(old.prog) != old.startedAsProc {
		t.Error("the old session's program was stopped")
	}
}

func hasInotify(pid int) bool {
	fds, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/fd/*")
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.Contains(l, "inotify") {
			return true
		}
	}
	return false
}

// gc (and rm) in the moment between a session's files going and its daemon
// publishing them again (held open here by stopping the daemon) sees a
// vanished session; it must leave it alone rather than remove it or take
// its program for a leftover.
func TestGCAndRmLeaveAnUnpublishedSessionAlone(t *testing.T) {
	root := testutil.Root(t)
	c := startCounter(t, root, "gcd")
	waitRecordNoted(t, c)
	if err := syscall.Kill(c.daemon, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(c.daemon, syscall.SIGCONT)
		}
	}()
	for _, f := range []string{"gcd.sock", "gcd.pid"} {
		if err := os.Remove(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	if s, _ := layout.At(root).Load("gcd"); s.Status != layout.Vanished {
		t.Fatalf("with its socket and pid file gone, gcd reads as %s, want vanished", s.Status)
	}
	r := testutil.Run(t, root, "gc")
	if !strings.Contains(r.Stdout, "Skipped (daemon alive, publishing its files again): gcd") {
		t.Errorf("gc: exit %d, %q %q; want it to skip gcd", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := layout.At(root).Metadata("gcd"); err != nil {
		t.Errorf("gc removed the record of a session whose daemon lives: %v", err)
	}
	if procStart(c.prog) != c.startedAsProc {
		t.Fatal("gc stopped the program of a session whose daemon lives")
	}
	r = testutil.Run(t, root, "rm", "gcd")
	if r.Code != 1 || !strings.Contains(r.Stderr, "still running") || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("rm: exit %d, %q %q; want exit 1 and one line saying it still runs", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := layout.At(root).Metadata("gcd"); err != nil || procStart(c.prog) != c.startedAsProc {
		t.Errorf("rm removed a session whose daemon lives, or stopped its program: %v", err)
	}
	syscall.Kill(c.daemon, syscall.SIGCONT)
	stopped = false
	c.checkBack(t)
}

// --snapshot, the original's form, picks the generation to recover: a
// saved record of another generation recovers nothing.
func TestRecoverSnapshotChoosesTheGeneration(t *testing.T) {
	root := testutil.Root(t)
	c := startCounter(t, root, "snap")
	saved, err := os.ReadFile(filepath.Join(root, "snap.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	right, wrong := filepath.Join(dir, "right.json"), filepath.Join(dir, "wrong.json")
	os.WriteFile(right, saved, 0o600)
	os.WriteFile(wrong, []byte(strings.Replace(string(saved), c.generation, "0123456789abcdef", 1)), 0o600)
	deleteRoot(t, root)
	r := testutil.Run(t, root, "recover", "snap", "--snapshot", wrong)
	if r.Code != 1 || r.Stdout != "" || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "nothing to recover") {
		t.Errorf("recover with another generation's snapshot: exit %d, %q %q; want exit 1 and one line", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("a recover that recovered nothing created the root: %v", err)
	}
	r = testutil.Run(t, root, "recover", "snap", "--snapshot", right)
	if r.Code != 0 || !strings.Contains(r.Stdout, "Recovered: snap ") {
		t.Fatalf("recover with the session's snapshot: exit %d, %q %q", r.Code, r.Stdout, r.Stderr)
	}
	c.checkBack(t)
}
