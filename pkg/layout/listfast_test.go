package layout

import (
	"github.com/ptyorg/pty/internal/testutil"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// ListFast must agree with List (Load per id) on every kind of entry.
func TestListFastAgreesWithList(t *testing.T) {
	root := t.TempDir()
	daemonPid := testutil.FakeDaemon(t, root, "running", "0123")
	dead := exec.Command("true")
	dead.Run()
	// A zombie (exited, not yet reaped) is not alive either.
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	testutil.WaitFor(t, 10*time.Second, "the child to become a zombie", func() bool { return isZombie(zombie.Process.Pid) })
	code := 0
	write := func(id string, exited bool, pid int, sock bool) {
		m := &Metadata{Command: "/bin/sh", CreatedAt: Now()}
		if exited {
			m.ExitCode, m.ExitedAt = &code, Now()
		}
		if err := WriteMetadata(root, id, m); err != nil {
			t.Fatal(err)
		}
		if pid > 0 {
			os.WriteFile(PathsFor(root, id).Pid(), []byte(strconv.Itoa(pid)), 0o600)
		}
		if sock {
			os.WriteFile(PathsFor(root, id).Sock(), nil, 0o600) // not a socket: never connects
		}
	}
	write("running", false, daemonPid, true)
	write("exited-gone", true, 0, false)
	write("exited-lingering", true, daemonPid, true)
	write("vanished-pid", false, dead.Process.Pid, false)
	write("vanished-sock", false, 0, true)
	write("vanished-bare", false, 0, false)
	write("vanished-zombie", false, zombie.Process.Pid, true)
	// A newer writer's field must survive the fast decode's fallback.
	os.WriteFile(PathsFor(root, "future").Meta(), []byte(`{"command":"/bin/sh","createdAt":"2025-01-01T00:00:00.000Z","exitCode":1,"exitedAt":"2025-01-01T00:00:01.000Z","fromTheFuture":{"a":1}}`), 0o600)
	os.WriteFile(PathsFor(root, "broken").Meta(), []byte("{"), 0o600)
	os.WriteFile(PathsFor(root, "x").Meta()+".tmp.1.ab", []byte("{}"), 0o600)

	slow, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := ListFast(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(fast) != 9 || !reflect.DeepEqual(slow, fast) {
		t.Fatalf("ListFast differs from List:\nList     %+v\nListFast %+v", slow, fast)
	}
	for _, s := range fast {
		if s.ID == "vanished-zombie" && s.Status != Vanished {
			t.Errorf("zombie daemon counted as %s", s.Status)
		}
		if s.ID == "future" && string(s.Meta.Extra["fromTheFuture"]) != `{"a":1}` {
			t.Errorf("unknown field lost: %+v", s.Meta.Extra)
		}
	}
	if none, err := ListFast(root + "/missing"); err != nil || len(none) != 0 {
		t.Errorf("missing root: %v %v", none, err)
	}
}
