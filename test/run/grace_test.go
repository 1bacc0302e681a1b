package run

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

const exitAtOnce = "echo hi; exit 42"

// A command that ends at once: pty run, pty attach right after run -d,
// and a client of the protocol right after run -d always get its output
// and its exit status, however the race between its end and the attach
// goes (the daemon serves for a grace period after the end).
func TestCommandThatEndsAtOnce(t *testing.T) {
	root := testutil.Root(t)
	for i := 0; i < 20; i++ {
		u := testutil.StartTerminal(t, testutil.Command(t, root, "", "run", "--", "sh", "-c", exitAtOnce), 24, 80)
		u.WaitOutput(t, "exited with code 42")
		code := u.Exit(t)
		out := u.Output()
		if code != 42 || !strings.Contains(out, "hi") {
			t.Fatalf("run %d: exit %d, output %q", i, code, out)
		}
	}
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("e%d", i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", exitAtOnce)
		u := testutil.StartTerminal(t, testutil.Command(t, root, "", "attach", "--no-restart", id), 24, 80)
		u.WaitOutput(t, "exited with code 42")
		code := u.Exit(t)
		out := u.Output()
		if code != 42 || !strings.Contains(out, "hi") || !strings.Contains(out, "exited with code 42") {
			t.Fatalf("attach %d: exit %d, output %q", i, code, out)
		}
	}
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("p%d", i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", exitAtOnce)
		conn, err := client.Dial(root, id)
		if err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		// The EXIT comes after the screen, not before it; the output is
		// on the screen or follows it.
		snap, err := conn.AttachFrame(24, 80)
		code, exited, seen := 0, false, string(snap.Screen)
		if err == nil && !snap.Exited {
			code, exited, err = conn.Follow(func(f proto.Frame) bool {
				seen += string(f.Payload)
				return true
			})
		}
		conn.Close()
		if err != nil || !exited || code != 42 || !strings.Contains(seen, "hi") {
			t.Fatalf("client %d: got %q, EXIT %v %d (before the screen: %v), err %v", i, seen, exited, code, snap.Exited, err)
		}
	}
}

// While an ended session's daemon lingers, the session is listed as
// exited, kill says it is not running, and a new session under its id (the old
// record reaped, as by default) starts as soon as the old daemon is gone.
func TestEndedSessionDuringGrace(t *testing.T) {
	root := testutil.Root(t)
	ended := func(id string) {
		testutil.WaitFor(t, 10*time.Second, "the exit of "+id, func() bool {
			m, err := layout.At(root).Metadata(id)
			return err != nil || m.Exited()
		})
	}
	for i := 0; i < 5; i++ {
		testutil.MustRun(t, root, "run", "-d", "--id", "kept", "--tag", "keep=1", "--", "sh", "-c", exitAtOnce)
		ended("kept")
		list := testutil.MustRun(t, root, "list", "--json").Stdout
		if !strings.Contains(list, `"exited"`) || strings.Contains(list, `"running"`) {
			t.Fatalf("list of an ended session: %s", list)
		}
		if r := testutil.Run(t, root, "kill", "kept"); r.Code != 1 || !strings.Contains(r.Stderr, "is not running") {
			t.Fatalf("kill of an ended session: %+v", r)
		}
		testutil.MustRun(t, root, "rm", "kept")

		// A clean exit: a failure's record would be kept.
		testutil.MustRun(t, root, "run", "-d", "--id", "same", "--", "sh", "-c", "echo hi")
		ended("same")
		testutil.MustRun(t, root, "run", "-d", "--id", "same", "--", "sh", "-c", "echo again; exec cat")
		testutil.WaitFor(t, 10*time.Second, "the new session", func() bool {
			return strings.Contains(peekPlain(t, root, "same"), "again")
		})
		testutil.MustRun(t, root, "kill", "same")
		testutil.MustRun(t, root, "rm", "same")
	}
}
