package exec

import (
	"bytes"
	"errors"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// The test binary cannot become the command: the command runs as its
// child instead, with the same arguments, environment and streams.
func init() {
	replace = func(path string, args []string, cio cli.IO) error {
		cmd := &osexec.Cmd{Path: path, Args: args, Env: cio.Env, Stdin: cio.In, Stdout: cio.Out, Stderr: cio.Err}
		err := cmd.Run()
		var ee *osexec.ExitError
		if errors.As(err, &ee) {
			return cli.ExitCode(ee.ExitCode())
		}
		return err
	}
}

func setup(t *testing.T, tags map[string]string) (cli.IO, *bytes.Buffer) {
	t.Helper()
	root := testutil.Root(t)
	testutil.WriteRecord(t, root, "s", &layout.Metadata{
		Command: "/bin/sleep", Args: []string{"1000"}, DisplayCommand: "sleep 1000",
		Cwd: "/", CreatedAt: layout.Now(), Generation: "g1", Tags: tags,
	})
	var out bytes.Buffer
	return cli.IO{Out: &out, Err: &out, Root: root, Env: []string{"PATH=" + os.Getenv("PATH"), "PTY_SESSION_GENERATION=g1"}, Now: time.Now, Session: "s"}, &out
}

func TestRunRecordsAndRuns(t *testing.T) {
	cio, _ := setup(t, nil)
	err := Run(Options{Args: []string{"sh", "-c", "exit 4"}}, cio)
	if code, ok := err.(cli.ExitCode); !ok || code != 4 {
		t.Fatalf("Run = %v, want exit status 4", err)
	}
	m, err := layout.At(cio.Root).Metadata("s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(m.Command, "/sh") || strings.Join(m.Args, " ") != "-c exit 4" || m.DisplayCommand != "sh -c exit 4" {
		t.Errorf("recorded %q %q %q", m.Command, m.Args, m.DisplayCommand)
	}
	evs, _ := layout.At(cio.Root).Events("s")
	if len(evs) != 1 || evs[0].Type != layout.EventSessionExec || evs[0].Fields["previousCommand"] != "sleep 1000" || evs[0].Fields["command"] != "sh -c exit 4" {
		t.Errorf("events %+v", evs)
	}
}

func TestRunRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		tags map[string]string
		edit func(*cli.IO)
		args []string
		want string
	}{
		{name: "outside", edit: func(c *cli.IO) { c.Session = "" }, want: "not inside a pty session"},
		{name: "no generation", edit: func(c *cli.IO) { c.Env = c.Env[:1] }, want: "no generation"},
		{name: "replaced", edit: func(c *cli.IO) { c.Env = append(c.Env, "PTY_SESSION_GENERATION=g0") }, want: "belongs to a replacement generation; command was not run."},
		{name: "pty.toml", tags: map[string]string{layout.TagPtyfile: "/a/pty.toml"}, want: "managed by /a/pty.toml"},
		{name: "no command", args: []string{}, want: "no command given"},
		{name: "not found", args: []string{"no-such-program-here"}, want: "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cio, out := setup(t, tc.tags)
			if tc.edit != nil {
				tc.edit(&cio)
			}
			before, _ := os.ReadFile(layout.At(cio.Root).Paths("s").Meta())
			args := tc.args
			if args == nil {
				args = []string{"sh", "-c", "echo ran"}
			}
			err := Run(Options{Args: args}, cio)
			var code cli.ExitCode
			if err == nil || errors.As(err, &code) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, want a refusal with %q", err, tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("output %q: something ran", out)
			}
			if after, _ := os.ReadFile(layout.At(cio.Root).Paths("s").Meta()); !bytes.Equal(before, after) {
				t.Errorf("the record changed")
			}
		})
	}
}
