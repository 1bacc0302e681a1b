package events

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunWaitsForTypeInProcess(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ev", "--tag", "keep=true", "--", "sleep", "100")
	var out, errb testutil.SyncBuffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{Ref: "ev", Wait: "user.*", JSON: true, Timeout: 30}, io)
	}()
	// Emit until the follower has seen one: it may start after the first.
	testutil.WaitFor(t, 20*time.Second, "the user event to be printed", func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		layout.At(root).EmitUser("ev", "user.ping", nil, nil)
		return false
	})
	if err := <-done; err != nil || !strings.Contains(out.String(), `"user.ping"`) {
		t.Fatalf("err %v out %q err %q", err, out.String(), errb.String())
	}

	// In a session, REF defaults to it.
	out.Reset()
	io.Session = "ev"
	if err := Run(context.Background(), Options{Recent: true}, io); err != nil || !strings.Contains(out.String(), "user.ping") {
		t.Fatalf("--recent inside the session: %v %q", err, out.String())
	}

	err := Run(context.Background(), Options{Ref: "ev", Wait: "user.never", Timeout: 0.2}, io)
	var code cli.ExitCode
	if !errors.As(err, &code) || code != 1 || !strings.Contains(errb.String(), `Timed out after 0.2s waiting for "user.never" event.`) {
		t.Fatalf("timeout: %v %q", err, errb.String())
	}
}

func TestRunRefusesBadOptions(t *testing.T) {
	io := cli.IO{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, Root: "/nonexistent"}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: 2, Ref: "a"}, "too many arguments"},
		{Options{Ref: "a", All: true}, "give a session or --all, not both"},
		{Options{Ref: "a", Recent: true, Wait: "bell"}, "--recent prints past events"},
		{Options{Ref: "a", Timeout: 3}, "-t/--timeout applies to --wait TYPE"},
		{Options{Ref: "a", Wait: "bel"}, `--wait: unknown event type "bel"`},
		{Options{}, "no session given and not inside a pty session"},
	} {
		err := Run(context.Background(), c.o, io)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
