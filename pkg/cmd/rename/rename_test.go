package rename

import (
	"bytes"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunSetsShowsAndClears(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "n", "--no-display-name", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}
	run := func(o Options) error { out.Reset(); return Run(o, io) }
	show := func() string {
		t.Helper()
		if err := run(Options{Show: true, Args: []string{"n"}}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	if err := run(Options{Args: []string{"n", "API server"}}); err != nil || show() != "API server\n" {
		t.Fatalf("rename n: %v, shows %q", err, out.String())
	}
	// Inside the session, REF is left out.
	io.Session = "n"
	if err := run(Options{Args: []string{"worker"}}); err != nil || show() != "worker\n" {
		t.Fatalf("rename inside: %v, shows %q", err, out.String())
	}
	if err := run(Options{Clear: true}); err != nil || show() != "" {
		t.Fatalf("clear inside: %v, shows %q", err, out.String())
	}
	io.Session = ""
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: []string{"worker"}}, `pty: not inside a pty session, so give the session too: pty rename REF "worker"`},
		{Options{Show: true, Clear: true}, "pty: --show and --clear cannot be combined"},
		{Options{Show: true}, "pty: no session given and not inside a pty session ($PTY_SESSION is unset): give a session id or name"},
		{Options{Args: []string{"nope", "x"}}, `Session "nope" not found.`},
	} {
		if err := run(c.o); err == nil || cli.Message(err) != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
