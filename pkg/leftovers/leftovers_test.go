package leftovers

import (
	"os/exec"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

// A leftover is told by its environment and its start: a process that
// started before the session did cannot be one of its processes, whatever
// its environment says.
func TestLeftoversAreNoOlderThanTheirSession(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	const gen = "00112233445566778899aabbccddeeff"
	cmd := exec.Command("sh", "-c", "read x")
	cmd.Env = []string{"PTY_SESSION=x", "PTY_SESSION_GENERATION=" + gen, "PTY_ROOT=" + root}
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close(); cmd.Wait() }()
	pid := cmd.Process.Pid

	found := func(m *layout.Metadata) bool {
		x, err := Scan()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range x.For(root, "x", m) {
			if p.Pid == pid {
				return true
			}
		}
		return false
	}
	before := layout.FormatTime(time.Now().Add(-time.Minute))
	after := layout.FormatTime(time.Now().Add(time.Minute))
	if !found(&layout.Metadata{Generation: gen, CreatedAt: before}) {
		t.Errorf("a process of the session (started after it) is not found")
	}
	if found(&layout.Metadata{Generation: gen, CreatedAt: after}) {
		t.Errorf("a process started before the session counts as its leftover")
	}
	if found(&layout.Metadata{Generation: "ffeeddccbbaa99887766554433221100", CreatedAt: before}) {
		t.Errorf("a process of another generation counts as a leftover")
	}
	if found(&layout.Metadata{CreatedAt: before}) {
		t.Errorf("a record without a generation has leftovers")
	}
	p, _ := procs.Lookup(pid)
	if !procs.Still(p) {
		t.Fatal("the stand-in died")
	}
}
