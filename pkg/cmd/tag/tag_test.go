package tag

import (
	"bytes"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunShowsSetsAndRemoves(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "t", "--no-display-name", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}
	run := func(o Options) error { out.Reset(); errb.Reset(); return Run(o, io) }

	if err := run(Options{Args: []string{"t"}}); err != nil || out.String() != "No tags on \"t\".\n" {
		t.Fatalf("no tags: %v %q", err, out.String())
	}
	if err := run(Options{Args: []string{"t", "role=web", "env=a=b", "gone=1"}, Rm: []string{"gone"}}); err != nil || out.Len()+errb.Len() != 0 {
		t.Fatalf("set: %v %q %q", err, out.String(), errb.String())
	}
	m, err := layout.At(root).Metadata("t")
	if err != nil || len(m.Tags) != 2 || m.Tags["role"] != "web" || m.Tags["env"] != "a=b" {
		t.Fatalf("tags after set role=web env=a=b gone=1 --rm gone: %v %v", m.Tags, err)
	}
	if err := run(Options{Args: []string{"t"}}); err != nil || out.String() != "  env=a=b\n  role=web\n" {
		t.Fatalf("show: %v %q", err, out.String())
	}
	if err := run(Options{Args: []string{"t", "novalue"}}); err == nil || cli.Message(err) != `pty: tag "novalue" has no '=': write it as KEY=VALUE` {
		t.Fatalf("a tag without '=': %v", err)
	}
	if err := run(Options{Args: []string{"t", "ptyfile=/x/pty.toml"}}); err != nil || !bytes.Contains(errb.Bytes(), []byte(`pty: warning: "t" is managed by /x/pty.toml`)) {
		t.Fatalf("a managed session: %v, stderr %q", err, errb.String())
	}
	if err := run(Options{}); err == nil || cli.Message(err) != "pty: no session given: pty tag REF [KEY=VALUE...] [--rm KEY...]" {
		t.Fatalf("no session: %v", err)
	}
}
