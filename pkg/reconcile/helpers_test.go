package reconcile_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/reconcile"
)

// start runs `pty run -d` with extra environment (PTY_REAP_ON_EXIT=false
// keeps exited sessions for gc to find) and returns the id.
func start(t *testing.T, root string, env []string, args ...string) string {
	t.Helper()
	cmd := testutil.Command(t, root, "", append([]string{"run", "-d"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	r := testutil.RunCmd(t, cmd)
	if r.Code != 0 {
		t.Fatalf("pty run %v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
	}
	i := indexOf(args, "--id")
	if i < 0 {
		t.Fatalf("tests give every session an --id")
	}
	return args[i+1]
}

var keepEnv = []string{"PTY_REAP_ON_EXIT=false"}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// gcPass runs `pty gc args...` and returns its output lines.
func gcPass(t *testing.T, root string, args ...string) []string {
	t.Helper()
	r := testutil.Run(t, root, append([]string{"gc"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("pty gc %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	if r.Stderr != "" {
		t.Errorf("pty gc %v wrote to stderr: %s", args, r.Stderr)
	}
	return strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n")
}

func gcJSON(t *testing.T, root string, args ...string) reconcile.Result {
	t.Helper()
	r := testutil.Run(t, root, append([]string{"gc", "--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("pty gc --json: exit %d: %s", r.Code, r.Stderr)
	}
	var res reconcile.Result
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatalf("gc --json output is not JSON: %v\n%s", err, r.Stdout)
	}
	return res
}

func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func mustHave(t *testing.T, lines []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !hasLine(lines, w) {
			t.Errorf("gc output lacks %q; got:\n%s", w, strings.Join(lines, "\n"))
		}
	}
}

func load(t *testing.T, root, id string) (layout.Session, bool) {
	t.Helper()
	s, err := layout.At(root).Load(id)
	if err != nil {
		return s, false
	}
	return s, true
}

func waitStatus(t *testing.T, root, id string, want layout.Status) layout.Session {
	t.Helper()
	var s layout.Session
	testutil.WaitFor(t, 15*time.Second, id+" to be "+string(want), func() bool {
		var ok bool
		s, ok = load(t, root, id)
		return ok && s.Status == want && (want == layout.Running || !proc.Alive(layout.At(root).Pid(id)))
	})
	// An exited daemon lingers for its shutdown; gc leaves it alone until
	// its pid is gone.
	testutil.WaitFor(t, 15*time.Second, id+"'s old daemon to be gone", func() bool {
		return want == layout.Running || !proc.Alive(s.Pid)
	})
	return s
}

func waitGone(t *testing.T, root, id string) {
	t.Helper()
	testutil.WaitFor(t, 15*time.Second, id+" to be removed", func() bool {
		_, err := os.Stat(layout.At(root).Paths(id).Meta())
		return os.IsNotExist(err)
	})
}

// vanish SIGKILLs a running session's daemon: no exit is recorded.
func vanish(t *testing.T, root, id string) {
	t.Helper()
	s := waitStatus(t, root, id, layout.Running)
	pid := layout.At(root).Pid(id)
	if pid <= 0 {
		t.Fatalf("%s has no pid file (status %s)", id, s.Status)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	waitStatus(t, root, id, layout.Vanished)
	// The daemon's end hangs up the session's terminal, which ends the
	// session's processes soon but not at once. Waiting for that keeps
	// gc's output the same from run to run: leftovers it found would be
	// a line of their own.
	testutil.WaitFor(t, 10*time.Second, id+"'s processes ended by the hang-up", func() bool {
		x, err := leftovers.Scan()
		return err == nil && len(x.For(root, id, s.Meta)) == 0
	})
}

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// livePid starts a process that lives until the test ends. (Never put
// the test's own pid in a pid file: root cleanup SIGKILLs those.)
func livePid(t *testing.T) int {
	t.Helper()
	c := exec.Command("sleep", "300")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c.Process.Pid
}

func setTags(t *testing.T, root, id string, kv map[string]string) {
	t.Helper()
	update(t, root, id, func(m *layout.Metadata) {
		if m.Tags == nil {
			m.Tags = map[string]string{}
		}
		for k, v := range kv {
			m.Tags[k] = v
		}
	})
}

func update(t *testing.T, root, id string, fn func(m *layout.Metadata)) {
	t.Helper()
	if _, err := layout.At(root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		fn(m)
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
}

func backdate(t *testing.T, root string, names ...string) {
	t.Helper()
	old := time.Now().Add(-10 * time.Minute)
	for _, n := range names {
		if err := os.Chtimes(filepath.Join(root, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotRoot records every entry's name, mode, size, mtime and content.
func snapshotRoot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		var content []byte
		if fi.Mode().IsRegular() {
			content, _ = os.ReadFile(p)
		}
		out[rel] = fi.Mode().String() + " " + fi.ModTime().Format(time.RFC3339Nano) + " " + string(content)
		return nil
	})
	return out
}

func diffSnapshots(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if v != w {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	sort.Strings(d)
	return d
}

func events(t *testing.T, root, id, typ string) []layout.Event {
	t.Helper()
	evs, err := layout.At(root).Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []layout.Event
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}
