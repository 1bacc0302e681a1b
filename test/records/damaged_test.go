package records

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

type listEntry struct {
	Name    string `json:"name"`
	Status  string `json:"status"`
	Pid     *int   `json:"pid"`
	Damaged string `json:"damaged"`
}

func listJSON(t *testing.T, root string) map[string]listEntry {
	t.Helper()
	r := testutil.MustRun(t, root, "list", "--json")
	var es []listEntry
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	out := map[string]listEntry{}
	for _, e := range es {
		out[e.Name] = e
	}
	return out
}

// A running session whose record was truncated, garbled, emptied or
// replaced by a non-object was left out of list, and kill and rm failed
// with "metadata is not valid JSON" while its daemon ran on.
func TestDamagedRecordOfALiveSessionIsListedKilledAndRemoved(t *testing.T) {
	root := testutil.Root(t)
	damage := map[string]func(good []byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"garbled":   func(b []byte) []byte { return []byte(`{"command": xx`) },
		"empty":     func([]byte) []byte { return nil },
		"array":     func([]byte) []byte { return []byte("[]") },
		"null":      func([]byte) []byte { return []byte("null\n") },
		// No pid file either: the socket says who the daemon is.
		"nopid": func([]byte) []byte { return []byte("{") },
	}
	for kind, f := range damage {
		id := "d-" + kind
		start(t, root, id)
		pid := layout.At(root).Pid(id)
		meta := layout.At(root).Paths(id).Meta()
		good, err := os.ReadFile(meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(meta, f(good), 0o600); err != nil {
			t.Fatal(err)
		}
		if kind == "nopid" {
			os.Remove(layout.At(root).Paths(id).Pid())
		}

		// Without a pid file, the daemon is named by its socket once it
		// listens itself, moments after run -d returned.
		var e listEntry
		var ok bool
		testutil.WaitFor(t, 10*time.Second, kind+": list --json naming the daemon", func() bool {
			e, ok = listJSON(t, root)[id]
			return ok && e.Pid != nil
		})
		if e.Status != "running" || e.Damaged == "" || *e.Pid != pid {
			t.Fatalf("%s: list --json entry %+v, want running, damaged, pid %d", kind, e, pid)
		}
		if r := testutil.MustRun(t, root, "list"); !strings.Contains(r.Stdout, id) || !strings.Contains(r.Stdout, "damaged record") {
			t.Fatalf("%s: list does not show the damaged session:\n%s", kind, r.Stdout)
		}
		// What needs the record says why it cannot be had.
		for _, args := range [][]string{{"tag", id, "x=1"}, {"tag", id}, {"state", "get", id}, {"restart", "-y", id}} {
			oneLineError(t, kind+": "+strings.Join(args, " "), testutil.Run(t, root, args...), "damaged")
		}
		// Its id is taken, by a running session.
		if r := testutil.Run(t, root, "run", "-d", "--id", id, "--", "true"); r.Code != 1 || !strings.Contains(r.Stderr, "is already running") {
			t.Errorf("%s: run --id of a damaged running session: exit %d, %q", kind, r.Code, r.Stderr)
		}
		if r := testutil.Run(t, root, "run", "-d", "-a", "--id", id, "--", "true"); r.Code != 0 || !strings.Contains(r.Stdout, "already running") {
			t.Errorf("%s: run -a -d: exit %d, %q %q", kind, r.Code, r.Stdout, r.Stderr)
		}
		if r := testutil.Run(t, root, "tag-multi", "--all", "-y", "x=1"); r.Code != 0 || !strings.Contains(r.Stderr, "skipping "+id) {
			t.Errorf("%s: tag-multi --all: exit %d, %q", kind, r.Code, r.Stderr)
		}
		// A live one is not gc's to remove.
		testutil.MustRun(t, root, "gc")
		if !proc.Alive(pid) {
			t.Fatalf("%s: gc stopped the damaged session's daemon", kind)
		}

		if r := testutil.Run(t, root, "rm", id); r.Code != 1 || !strings.Contains(r.Stderr, "is running") {
			t.Errorf("%s: rm of the running session: exit %d, %q", kind, r.Code, r.Stderr)
		}
		if r := testutil.Run(t, root, "kill", id); r.Code != 0 {
			t.Fatalf("%s: kill: exit %d, stdout %q, stderr %q", kind, r.Code, r.Stdout, r.Stderr)
		}
		testutil.WaitFor(t, 10*time.Second, "the daemon to exit", func() bool { return !proc.Alive(pid) })
		if e := listJSON(t, root)[id]; e.Status != "vanished" || e.Damaged == "" {
			t.Errorf("%s: after kill, list --json entry %+v", kind, e)
		}
		oneLineError(t, kind+": run --id of a damaged dead record", testutil.Run(t, root, "run", "-d", "--id", id, "--", "true"), "in use by a damaged record")
		if r := testutil.Run(t, root, "rm", id); r.Code != 0 {
			t.Fatalf("%s: rm: exit %d, stderr %q", kind, r.Code, r.Stderr)
		}
		for _, n := range testutil.DirNames(t, root) {
			if strings.HasPrefix(n, id+".") {
				t.Errorf("%s: %s left after rm", kind, n)
			}
		}
	}
}

// A damaged record without a pid file whose socket some other process
// listens on (an impostor, or the launcher before the daemon listens
// itself): the socket's owner is not taken for the daemon, so kill never
// signals it.
func TestDamagedRecordSocketOfAnotherProcessIsNotItsDaemon(t *testing.T) {
	root := testutil.Root(t)
	id := "imp"
	start(t, root, id)
	pid := layout.At(root).Pid(id)
	syscall.Kill(pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "the daemon to die", func() bool { return !proc.Alive(pid) })
	p := layout.At(root).Paths(id)
	os.Remove(p.Pid())
	os.Remove(p.Sock())
	if err := os.WriteFile(p.Meta(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	imp := exec.Command("python3", "-c", `import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(16)
print("ready", flush=True)
time.sleep(600)`, p.Sock())
	out, err := imp.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { imp.Process.Kill(); imp.Wait() })
	if _, err := out.Read(make([]byte, 8)); err != nil {
		t.Fatal(err)
	}

	e, ok := listJSON(t, root)[id]
	if !ok || e.Pid != nil {
		t.Errorf("list --json entry %+v (found %v): the socket's owner taken for the daemon", e, ok)
	}
	testutil.Run(t, root, "kill", id)
	testutil.Run(t, root, "gc")
	if err := imp.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process listening on the socket was signalled: %v", err)
	}
	if r, _ := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(imp.Process.Pid)).Output(); strings.HasPrefix(string(r), "Z") {
		t.Fatalf("the process listening on the socket was killed")
	}
}
