package run

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

// testIO runs Run in this process against a fresh root, with the built
// pty-daemon on PATH (spawn finds it there) and no terminal.
func testIO(t *testing.T) (cli.IO, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	root := testutil.Root(t)
	t.Setenv("PATH", testutil.BinDir(t)+":"+os.Getenv("PATH"))
	in, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	var out, errb bytes.Buffer
	return cli.IO{In: in, Out: &out, Err: &errb, Root: root, Env: testutil.Env(t, root), Now: time.Now}, &out, &errb
}

func TestRunDetachedAndAgain(t *testing.T) {
	io, out, _ := testIO(t)
	o := Options{Argv: []string{"sh", "-c", "echo up; exec sleep 60"}, Detach: true, ID: "bg", IDSet: true, Tags: []string{"team=a"}, Rows: 30, RowsSet: true}
	if err := Run(context.Background(), o, io); err != nil || out.String() != "Session \"bg\" created.\n" {
		t.Fatalf("run -d: %v %q", err, out)
	}
	s, err := layout.At(io.Root).Load("bg")
	if err != nil || s.Status != layout.Running || s.Meta.Tags["team"] != "a" || s.Meta.Rows != 30 || s.Meta.Cols != 80 {
		t.Fatalf("after run -d: %+v %v", s, err)
	}
	// -a -d on a running session: it runs, as asked.
	out.Reset()
	o.Again = true
	if err := Run(context.Background(), o, io); err != nil || out.String() != "Session \"bg\" is already running.\n" {
		t.Fatalf("run -a -d: %v %q", err, out)
	}
	// The same id without -a is refused.
	o.Again = false
	if err := Run(context.Background(), o, io); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second run -d: %v", err)
	}
}

func TestRunBadInput(t *testing.T) {
	io, out, _ := testIO(t)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "no command given"},
		{Options{Argv: []string{"true"}, Rows: 0, RowsSet: true}, "--rows 0 is out of range"},
		{Options{Argv: []string{"true"}, Cols: 1001, ColsSet: true}, "--cols 1001 is out of range"},
		{Options{Argv: []string{"true"}, IDSet: true}, "id"},
		{Options{Argv: []string{"true"}, Tags: []string{"novalue"}}, "--tag \"novalue\" has no '='"},
		{Options{Argv: []string{"true"}, Env: []string{"=x"}}, "empty key"},
		{Options{Argv: []string{"true"}, Unset: []string{"A=B"}}, "--unset-env \"A=B\" is invalid"},
		{Options{Argv: []string{"true"}, Name: "x", NoName: true}, "contradict"},
		{Options{Argv: []string{"true"}, Again: true}, "-a needs --id or --name"},
		{Options{Argv: []string{"no-such-command-here"}, Detach: true}, "Command not found"},
	} {
		err := Run(context.Background(), c.o, io)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	if out.Len() != 0 {
		t.Errorf("bad input printed %q", out)
	}
	if ents, _ := os.ReadDir(io.Root); len(ents) != 0 {
		t.Errorf("bad input left files: %v", ents)
	}
}

func TestReuseLetsTheCommandLineWin(t *testing.T) {
	stored := spawn.Options{ID: "x", Command: "/bin/old", Cwd: "/old", Tags: map[string]string{"a": "1"},
		ExtraEnv: map[string]string{"E": "1"}, IsolateEnv: true, DisplayName: new(string), Rows: 50}
	got := reuse(spawn.Options{Command: "new"}, stored, Options{})
	if got.Command != "new" || got.Cwd != "/old" || got.Tags["a"] != "1" || got.ExtraEnv["E"] != "1" || !got.IsolateEnv ||
		got.DisplayName != stored.DisplayName || !got.Replace || got.Rows != 0 {
		t.Errorf("reuse without flags: %+v", got)
	}
	cmdline := spawn.Options{Command: "new", Cwd: "/new", Tags: map[string]string{"b": "2"}, ExtraEnv: map[string]string{"F": "2"}}
	got = reuse(cmdline, stored, Options{Cwd: "/new", Tags: []string{"b=2"}, Env: []string{"F=2"}, Name: "n"})
	if got.Cwd != "/new" || got.Tags["a"] != "" || got.Tags["b"] != "2" || got.ExtraEnv["E"] != "" || got.IsolateEnv || got.DisplayName != nil {
		t.Errorf("reuse with flags: %+v", got)
	}
}

func TestParseStopsAtTheCommand(t *testing.T) {
	var o Options
	c := Command(&o)
	Parse(c, &o, []string{"-d", "--id", "x", "--rows", "30", "sh", "-c", "--id y"})
	if !o.Detach || o.ID != "x" || !o.IDSet || !o.RowsSet || o.ColsSet || o.NameSet || o.Rows != 30 || len(o.Argv) != 3 || o.Argv[2] != "--id y" {
		t.Fatalf("parsed into %+v", o)
	}
}
