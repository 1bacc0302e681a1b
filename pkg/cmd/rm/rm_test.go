package rm

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunRemovesOnlyAStoppedSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "r", "--tag", "keep=true", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	err := Run(Options{Args: []string{"r"}}, io)
	if want := `Session "r" is running. Stop it first with "pty kill r".`; err == nil || cli.Message(err) != want {
		t.Fatalf("rm of a running session: %v, want %q", err, want)
	}
	if _, err := layout.At(root).Load("r"); err != nil {
		t.Fatalf("a refused rm touched the record: %v", err)
	}
	testutil.MustRun(t, root, "kill", "r")
	if err := Run(Options{Args: []string{"r"}}, io); err != nil || out.String() != "Session \"r\" removed.\n" {
		t.Fatalf("rm r: %v, stdout %q", err, out.String())
	}
	if _, err := layout.At(root).Load("r"); !errors.Is(err, layout.ErrNotFound) {
		t.Fatalf("after rm, the record: %v", err)
	}
	if err := Run(Options{}, io); err == nil || cli.Message(err) != "pty: rm takes one session: pty rm REF (see 'pty rm --help')" {
		t.Fatalf("rm without a session: %v", err)
	}
}
