package evidence

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// outcome runs pty evidence args and returns its one line of JSON, which
// must come with exit 0.
func outcome(t *testing.T, root string, args ...string) string {
	t.Helper()
	r := testutil.Run(t, root, append([]string{"evidence"}, args...)...)
	if r.Code != 0 || strings.Count(r.Stdout, "\n") != 1 || r.Stderr != "" {
		t.Fatalf("pty evidence %v: exit %d, stdout %q, stderr %q; want exit 0 and one line", args, r.Code, r.Stdout, r.Stderr)
	}
	if !json.Valid([]byte(r.Stdout)) {
		t.Fatalf("not JSON: %q", r.Stdout)
	}
	return strings.TrimSuffix(r.Stdout, "\n")
}

func waitStatus(t *testing.T, root, id string, want layout.Status) layout.Session {
	t.Helper()
	var s layout.Session
	testutil.WaitForState(t, 30*time.Second, "session "+id+" to be "+string(want), func() (bool, string) {
		var err error
		s, err = layout.At(root).Load(id)
		return err == nil && s.Status == want, string(s.Status)
	})
	return s
}

func TestSnapshotAndRemoveOfAnExitedSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "job", "--name", "worker", "--", "sh", "-c", "echo evidence-line; read x; exit 5")
	testutil.WaitFor(t, 30*time.Second, "the session to run", func() bool {
		s, err := layout.At(root).Load("job")
		return err == nil && s.Status == layout.Running
	})
	if got := outcome(t, root, "snapshot", "--id", "job"); got != `{"_tag":"unavailable","reason":"running"}` {
		t.Errorf("running: %s", got)
	}
	gen := waitStatus(t, root, "job", layout.Running).Meta.Generation
	if got := outcome(t, root, "remove", "--id", "job", "--expected-generation", gen); got != `{"_tag":"not-terminal"}` {
		t.Errorf("remove running: %s", got)
	}
	testutil.MustRun(t, root, "send", "job", "go\n")
	s := waitStatus(t, root, "job", layout.Exited)
	lines, _ := json.Marshal(s.Meta.LastLines)
	if !strings.Contains(string(lines), "evidence-line") {
		t.Fatalf("the record has no last lines: %s", lines)
	}
	want := `{"_tag":"snapshot","snapshot":{"name":"job","generation":"` + gen + `","status":"exited","exitCode":5,"stream":"combined","tail":{"_tag":"present","lastLines":` + string(lines) + `}}}`
	if got := outcome(t, root, "snapshot", "--id", "job"); got != want {
		t.Errorf("snapshot\n got %s\nwant %s", got, want)
	}
	// Exact ids only: the display name is not resolved.
	if got := outcome(t, root, "snapshot", "--id", "worker"); got != `{"_tag":"unavailable","reason":"missing"}` {
		t.Errorf("by display name: %s", got)
	}
	if got := outcome(t, root, "remove", "--id", "job", "--expected-generation", gen+"x"); got != `{"_tag":"generation-mismatch"}` {
		t.Errorf("remove of another generation: %s", got)
	}
	if _, err := layout.At(root).Metadata("job"); err != nil {
		t.Fatalf("a mismatched remove removed the record: %v", err)
	}
	if got := outcome(t, root, "remove", "--id", "job", "--expected-generation", gen); got != `{"_tag":"removed"}` {
		t.Errorf("remove: %s", got)
	}
	if names := testutil.DirNames(t, root); len(names) != 0 {
		t.Errorf("left in the root: %v", names)
	}
	if got := outcome(t, root, "remove", "--id", "job", "--expected-generation", gen); got != `{"_tag":"missing"}` {
		t.Errorf("remove again: %s", got)
	}
	if got := outcome(t, root, "snapshot", "--id", "job"); got != `{"_tag":"unavailable","reason":"missing"}` {
		t.Errorf("snapshot after remove: %s", got)
	}
}

func TestSnapshotOfAVanishedSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "v", "--", "sleep", "1000")
	s := waitStatus(t, root, "v", layout.Running)
	if s.Pid <= 0 {
		t.Fatalf("no daemon pid: %+v", s)
	}
	if err := syscall.Kill(s.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, root, "v", layout.Vanished)
	want := `{"_tag":"snapshot","snapshot":{"name":"v","generation":"` + s.Meta.Generation + `","status":"vanished","exitCode":null,"stream":"combined","tail":{"_tag":"unavailable"}}}`
	if got := outcome(t, root, "snapshot", "--id", "v"); got != want {
		t.Errorf("snapshot\n got %s\nwant %s", got, want)
	}
}

func TestUnusableRecords(t *testing.T) {
	root := testutil.Root(t)
	if err := os.WriteFile(filepath.Join(root, "bad.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.WriteRecord(t, root, "old", &layout.Metadata{Command: "/bin/true", DisplayCommand: "true", Cwd: "/", CreatedAt: layout.Now()})
	for _, tc := range [][2]string{
		{"bad", `{"_tag":"unavailable","reason":"invalid-metadata"}`},
		{"old", `{"_tag":"unavailable","reason":"generation-unavailable"}`},
	} {
		if got := outcome(t, root, "snapshot", "--id", tc[0]); got != tc[1] {
			t.Errorf("snapshot %s: %s, want %s", tc[0], got, tc[1])
		}
	}
	if got := outcome(t, root, "remove", "--id", "bad", "--expected-generation", "g"); got != `{"_tag":"invalid-metadata"}` {
		t.Errorf("remove bad: %s", got)
	}
	if got := outcome(t, root, "remove", "--id", "old", "--expected-generation", "g"); got != `{"_tag":"generation-mismatch"}` {
		t.Errorf("remove old: %s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "bad.json")); err != nil {
		t.Errorf("the damaged record was removed: %v", err)
	}
}

func TestBusy(t *testing.T) {
	root := testutil.Root(t)
	testutil.WriteRecord(t, root, "b", &layout.Metadata{Command: "/bin/true", DisplayCommand: "true", Cwd: "/", CreatedAt: layout.Now(), Generation: "g", ExitCode: new(int), ExitedAt: layout.Now()})
	l, err := fsx.AcquireLock(layout.At(root).Paths("b").Lock(), 0, rootdir.CheckPerms)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if got := outcome(t, root, "snapshot", "--id", "b"); got != `{"_tag":"unavailable","reason":"busy"}` {
		t.Errorf("snapshot: %s", got)
	}
	if got := outcome(t, root, "remove", "--id", "b", "--expected-generation", "g"); got != `{"_tag":"busy"}` {
		t.Errorf("remove: %s", got)
	}
	if _, err := os.Stat(layout.At(root).Paths("b").Meta()); err != nil {
		t.Errorf("removed while busy: %v", err)
	}
}

func TestArgumentErrors(t *testing.T) {
	root := testutil.Root(t)
	for _, args := range [][]string{
		{},
		{"peek", "--id", "x"},
		{"snapshot"},
		{"snapshot", "--id"},
		{"snapshot", "--id", "x", "extra"},
		{"snapshot", "--id", "x", "--expected-generation", "g"},
		{"remove", "--id", "x"},
		{"snapshot", "--id", "../x"},
		{"snapshot", "--bogus"},
	} {
		r := testutil.Run(t, root, append([]string{"evidence"}, args...)...)
		if r.Code == 0 || r.Stdout != "" || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("pty evidence %q: exit %d, stdout %q, stderr %q; want non-zero, nothing and one line", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}
