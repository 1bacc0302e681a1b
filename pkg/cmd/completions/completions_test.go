package completions

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunPrintsScriptsAndAnswersThem(t *testing.T) {
	root := testutil.Root(t)
	t.Setenv("PTY_ROOT", root) // completion.System's registry
	testutil.MustRun(t, root, "run", "-d", "--id", "compl-me", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Now: time.Now}
	run := func(args ...string) error {
		out.Reset()
		errb.Reset()
		var o Options
		Parse(Command(&o), &o, args)
		return Run(o, io)
	}

	if err := run("bash"); err != nil || !strings.Contains(out.String(), "complete ") {
		t.Fatalf("bash script: %v %q", err, out.String())
	}
	if err := run("--complete", "--", "attach", "compl"); err != nil || !strings.Contains(out.String(), "compl-me") {
		t.Fatalf("completing a session: %v %q", err, out.String())
	}
	var code cli.ExitCode
	if err := run(); !errors.As(err, &code) || code != 2 || errb.String() != "pty: completions needs one shell: bash, zsh or fish (as in: pty completions bash)\n" {
		t.Fatalf("no shell: %v %q", err, errb.String())
	}
	if err := run("tcsh"); !errors.As(err, &code) || code != 2 || !strings.HasPrefix(errb.String(), "pty: ") || out.Len() != 0 {
		t.Fatalf("an unknown shell: %v %q %q", err, errb.String(), out.String())
	}
}
