package records

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/errlog"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// startWaiting runs a session whose shell waits for a line of input and
// then runs script; it returns once the daemon has the session.
func startWaiting(t *testing.T, root, id, script string) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "keep=true", "--", "sh", "-c", "read x; "+script+"; sleep 1000")
	testutil.WaitFor(t, 10*time.Second, id+"'s daemon to take over its launch claim", func() bool {
		_, err := os.Lstat(layout.At(root).Paths(id).Launch())
		return os.IsNotExist(err)
	})
}

// breakEvents replaces a session's event log with a directory: every
// append to it fails, as on a damaged disk, until restoreEvents.
func breakEvents(t *testing.T, root, id string) {
	t.Helper()
	p := layout.At(root).Paths(id).Events()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
}

func restoreEvents(t *testing.T, root, id string) {
	t.Helper()
	if err := os.Remove(layout.At(root).Paths(id).Events()); err != nil {
		t.Fatal(err)
	}
}

func logLines(t *testing.T, path string) []string {
	t.Helper()
	s := strings.TrimSuffix(readFile(t, path), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// An event the daemon cannot append is a line in its error log, which
// pty stats reports; rm removes the log with the session, and gc leaves
// it to its session (it is no debris) but sweeps one left without a
// record.
func TestDaemonRecordsEventsItCannotAppend(t *testing.T) {
	root := testutil.Root(t)
	startWaiting(t, root, "e", `printf '\033]2;hello\007'`)
	p := layout.At(root).Paths("e")
	if r := testutil.MustRun(t, root, "stats", "e"); strings.Contains(r.Stdout, "errors") {
		t.Errorf("stats of a session without errors:\n%s", r.Stdout)
	}
	breakEvents(t, root, "e")
	testutil.MustRun(t, root, "send", "e", "go\n")
	testutil.WaitFor(t, 20*time.Second, "the failed append in "+p.DaemonLog(), func() bool {
		return len(logLines(t, p.DaemonLog())) > 0
	})
	lines := logLines(t, p.DaemonLog())
	if len(lines) != 1 {
		t.Fatalf("error log = %q, want one line", lines)
	}
	when, rest, _ := strings.Cut(lines[0], " ")
	if _, err := time.Parse(time.RFC3339, when); err != nil {
		t.Errorf("error log line %q does not start with an RFC 3339 time: %v", lines[0], err)
	}
	if !strings.HasPrefix(rest, "append events: ") || !strings.Contains(rest, p.Events()) || !strings.Contains(rest, "is a directory") {
		t.Errorf("error log line %q: want what failed (append events) and the error", lines[0])
	}

	r := testutil.MustRun(t, root, "stats", "e")
	if want := "  errors      the daemon recorded 1 failure: see " + p.DaemonLog() + "\n"; !strings.Contains(r.Stdout, want) {
		t.Errorf("stats e = %q, want a line %q", r.Stdout, want)
	}
	var st struct {
		ErrorLog struct {
			Count int
			Path  string
		}
	}
	r = testutil.MustRun(t, root, "stats", "--json", "e")
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("stats --json e: %v\n%s", err, r.Stdout)
	}
	if st.ErrorLog.Count != 1 || st.ErrorLog.Path != p.DaemonLog() {
		t.Errorf("stats --json e = %s, want errorLog {count 1, path %s}", r.Stdout, p.DaemonLog())
	}

	// Old enough to be debris, were it without its record.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p.DaemonLog(), old, old)
	ghost := layout.At(root).Paths("ghost")
	for _, f := range []string{ghost.DaemonLog(), ghost.DaemonLogOld()} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(f, old, old)
	}
	testutil.MustRun(t, root, "gc")
	if _, err := os.Lstat(p.DaemonLog()); err != nil {
		t.Errorf("gc removed the error log of a live session: %v", err)
	}
	for _, f := range []string{ghost.DaemonLog(), ghost.DaemonLogOld()} {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("gc left %s, an error log without its record: %v", filepath.Base(f), err)
		}
	}

	// The exit is an append too: with the log back, it is recorded.
	restoreEvents(t, root, "e")
	testutil.MustRun(t, root, "kill", "e")
	r = testutil.MustRun(t, root, "stats", "--json", "e")
	if !strings.Contains(r.Stdout, `"errorLog"`) || !strings.Contains(r.Stdout, `"count": 1`) {
		t.Errorf("stats --json of the stopped session = %s, want its errorLog", r.Stdout)
	}
	if r := testutil.MustRun(t, root, "stats", "e"); !strings.Contains(r.Stdout, "the daemon recorded 1 failure") {
		t.Errorf("stats of the stopped session = %q", r.Stdout)
	}
	os.WriteFile(p.DaemonLogOld(), []byte("x\n"), 0o600)
	testutil.MustRun(t, root, "rm", "e")
	for _, f := range []string{p.DaemonLog(), p.DaemonLogOld()} {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			t.Errorf("rm left %s: %v", filepath.Base(f), err)
		}
	}
}

// A flood of failures keeps the log within its bound: two files of at
// most errlog.MaxBytes, whole lines, the newest ones.
func TestDaemonErrorLogIsBoundedUnderAFlood(t *testing.T) {
	root := testutil.Root(t)
	startWaiting(t, root, "f", `i=0; while :; do i=$((i+1)); printf '\033]2;%d\007' $i; done`)
	p := layout.At(root).Paths("f")
	breakEvents(t, root, "f")
	testutil.MustRun(t, root, "send", "f", "go\n")
	var first os.FileInfo
	testutil.WaitFor(t, 60*time.Second, "the error log to be rotated twice", func() bool {
		fi, err := os.Lstat(p.DaemonLogOld())
		if err != nil {
			return false
		}
		if first == nil {
			first = fi
		}
		return !os.SameFile(first, fi)
	})
	for _, f := range []string{p.DaemonLog(), p.DaemonLogOld()} {
		fi, err := os.Lstat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > errlog.MaxBytes {
			t.Errorf("%s holds %d bytes, past the bound of %d", filepath.Base(f), fi.Size(), errlog.MaxBytes)
		}
	}
	b, _ := os.ReadFile(p.DaemonLogOld())
	if len(b) < errlog.MaxBytes/2 || b[len(b)-1] != '\n' {
		t.Errorf("the rotated log holds %d bytes, ending in %q: want whole lines, about %d bytes", len(b), b[max(0, len(b)-1):], errlog.MaxBytes)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !strings.Contains(l, " append events: ") {
			t.Fatalf("line %d of the rotated log = %q", i+1, l)
		}
	}
	restoreEvents(t, root, "f")
	testutil.MustRun(t, root, "kill", "f")
	n := len(logLines(t, p.DaemonLog())) + len(logLines(t, p.DaemonLogOld()))
	r := testutil.MustRun(t, root, "stats", "f")
	if want := "the daemon recorded " + strconv.Itoa(n) + " failures"; !strings.Contains(r.Stdout, want) {
		t.Errorf("stats f = %q, want %q", r.Stdout, want)
	}
}
