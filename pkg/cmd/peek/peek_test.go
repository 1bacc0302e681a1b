package peek

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func runPeek(t *testing.T, root string, o Options) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(o, cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now})
	return out.String(), errb.String(), err
}

// A daemon that takes the connection and never answers (stopped, or
// wedged) is reported once its answer time is up, in one line, without a
// second try: by id and by name alike.
func TestRunHungDaemonFailsOnceWithinItsTime(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "hung", "--name", "wedged", "--", "sleep", "60")
	sock := layout.At(root).Paths("hung").Sock()
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	for _, ref := range []string{"hung", "wedged"} {
		start := time.Now()
		out, _, err := runPeek(t, root, Options{Args: []string{ref}, Plain: true, Answer: 300 * time.Millisecond})
		took := time.Since(start)
		if err == nil || out != "" {
			t.Fatalf("%s: no error from a daemon that never answers: %q", ref, out)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, "did not answer in time") || !strings.Contains(msg, "pty kill hung") {
			t.Errorf("%s: %q, want one line saying the daemon did not answer in time", ref, msg)
		}
		if n := len(accepted); n != 1 {
			t.Errorf("%s: %d connections to the hung daemon, want exactly one attempt", ref, n)
		}
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %v with an answer time of 300ms", ref, took)
		}
	}
}

func TestRunChecksFlagsBeforeAnything(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: []string{"x"}, TimeoutSet: true, Timeout: 5}, "-t only limits --wait TEXT: add --wait, or drop -t"},
		{Options{Args: []string{"x"}, Follow: true, Plain: true}, "-f and --plain cannot be combined"},
		{Options{Args: []string{"x"}, Follow: true, Waits: []string{"a"}}, "-f and --wait cannot be combined"},
		{Options{Args: []string{"x"}, Waits: []string{""}}, "--wait needs non-empty text"},
		{Options{Args: []string{"x"}, Waits: []string{"a"}, Timeout: -1, TimeoutSet: true}, "-t must be a positive number"},
		{Options{}, "peek takes one session reference, as in: pty peek ID (see 'pty peek --help')"},
		{Options{Args: []string{"x", "y"}, Follow: true, Plain: true}, "peek takes one session reference"},
	} {
		_, _, err := runPeek(t, "/nonexistent", c.o)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

func TestRunPrintsScreenAndEndedSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "live", "--name", "lbl", "--", "sh", "-c", "echo hello-there; sleep 60")
	testutil.WaitFor(t, 10*time.Second, "output", func() bool {
		out, _, _ := runPeek(t, root, Options{Args: []string{"live"}, Plain: true})
		return strings.Contains(out, "hello-there")
	})
	out, _, err := runPeek(t, root, Options{Args: []string{"lbl"}, Plain: true})
	if err != nil || out != "hello-there\n" {
		t.Errorf("by name: %q %v", out, err)
	}
	_, _, err = runPeek(t, root, Options{Args: []string{"nosuch"}})
	var code cli.ExitCode
	if err == nil || errors.As(err, &code) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown session: %v", err)
	}
}
