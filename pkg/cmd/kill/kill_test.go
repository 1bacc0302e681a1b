package kill

import (
	"bytes"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunKillsAndKeepsTheRecord(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "k", "--tag", "keep=true", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	if err := Run(Options{Args: []string{"k"}}, io); err != nil || out.String() != "Session \"k\" killed.\n" {
		t.Fatalf("kill k: %v, stdout %q", err, out.String())
	}
	s, err := layout.At(root).Load("k")
	if err != nil || s.Status != layout.Exited {
		t.Fatalf("after kill: %v, status %s (want the record kept, exited)", err, s.Status)
	}
	out.Reset()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"k"}, `Session "k" is not running. Use "pty rm k" to remove it.`},
		{[]string{"nope"}, `Session "nope" not found.`},
		{nil, "pty: kill takes one session: pty kill REF (see 'pty kill --help')"},
		{[]string{"k", "x"}, "pty: kill takes one session: pty kill REF (see 'pty kill --help')"},
	} {
		err := Run(Options{Args: c.args}, io)
		if err == nil || cli.Message(err) != c.want {
			t.Errorf("kill %q: %v, want %q", c.args, err, c.want)
		}
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("failed kills wrote %q %q", out.String(), errb.String())
	}
}
