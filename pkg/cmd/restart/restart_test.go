package restart

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunRestartsARunningSessionOnlyWhenTold(t *testing.T) {
	root := testutil.Root(t)
	t.Setenv("PATH", testutil.BinDir(t)+":"+os.Getenv("PATH")) // Relaunch finds pty-daemon there
	testutil.MustRun(t, root, "run", "-d", "--id", "r", "--", "sleep", "100")
	testutil.MustRun(t, root, "run", "-d", "--id", "agent", "--tag", "role=agent", "--", "sleep", "100")
	testutil.WaitFor(t, 10*time.Second, "r's daemon to write its pid", func() bool { return layout.At(root).Pid("r") > 0 })
	before := layout.At(root).Pid("r")
	r, w, _ := os.Pipe() // stdin that is not a terminal
	defer r.Close()
	defer w.Close()
	var out, errb bytes.Buffer
	io := cli.IO{In: r, Out: &out, Err: &errb, Root: root, Now: time.Now}
	ctx := context.Background()

	err := Run(ctx, Options{Args: []string{"r"}}, io)
	if want := `Session "r" is running; pass -y to kill and restart it without a prompt.`; err == nil || cli.Message(err) != want {
		t.Fatalf("restart without -y off a terminal: %v, want %q", err, want)
	}
	err = Run(ctx, Options{Yes: true, Args: []string{"agent"}}, io)
	if want := `Session "agent" runs an AI agent; restarting it throws away its conversation. Pass --force to restart it anyway.`; err == nil || cli.Message(err) != want {
		t.Fatalf("restart of an agent: %v, want %q", err, want)
	}
	if layout.At(root).Pid("r") != before || out.Len()+errb.Len() != 0 {
		t.Fatalf("refused restarts changed something: pid %d (was %d), %q %q", layout.At(root).Pid("r"), before, out.String(), errb.String())
	}
	if err := Run(ctx, Options{Yes: true, Args: []string{"r"}}, io); err != nil || out.String() != "Session \"r\" restarted.\n" {
		t.Fatalf("restart -y: %v %q", err, out.String())
	}
	if s, err := layout.At(root).Load("r"); err != nil || s.Status != layout.Running || layout.At(root).Pid("r") == before {
		t.Fatalf("after restart: %v, status %s, pid %d (was %d)", err, s.Status, layout.At(root).Pid("r"), before)
	}
	if err := Run(ctx, Options{}, io); err == nil || cli.Message(err) != "pty: restart takes one session: pty restart [-y] REF (see 'pty restart --help')" {
		t.Fatalf("no session: %v", err)
	}
}
