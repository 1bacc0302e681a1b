package recover

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// A daemon whose root was removed writes nothing into a directory made
// again at that path: not the events its program keeps causing (title
// changes, bells), not the record updates its output and attaches make,
// not a line of its error log about the writes it can no longer make.
// Only pty recover brings it back.
func TestRemovedRootTakesNoWritesFromItsDaemons(t *testing.T) {
	root := testutil.Root(t)
	// A title change and a bell every 20 ms: each is an event to append.
	script := `i=0; while :; do i=$((i+1)); printf '\033]2;t%d\007\007c%d\n' $i $i; sleep 0.02; done`
	testutil.MustRun(t, root, "run", "-d", "--id", "noisy", "--", "sh", "-c", script)
	testutil.WaitFor(t, 20*time.Second, "noisy to log title changes", func() bool {
		evs, err := os.ReadFile(layout.At(root).Paths("noisy").Events())
		return err == nil && len(evs) > 2000
	})
	// rm -rf, not os.RemoveAll, which tries again when a file appears
	// behind it: rm fails.
	if out, err := exec.Command("rm", "-rf", root).CombinedOutput(); err != nil {
		t.Fatalf("rm -rf of the root while its daemon writes: %v %s", err, out)
	}
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		if names := testutil.DirNames(t, root); len(names) > 0 {
			t.Fatalf("after the root was removed and made again, the daemon wrote %v into it", names)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := testutil.Run(t, root, "recover", "noisy")
	if r.Code != 0 {
		t.Fatalf("recover noisy: %+v", r)
	}
	testutil.WaitFor(t, 10*time.Second, "noisy to be running again", func() bool {
		s, err := layout.At(root).Load("noisy")
		return err == nil && s.Status == layout.Running
	})
}
