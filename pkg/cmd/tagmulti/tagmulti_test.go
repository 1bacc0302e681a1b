package tagmulti

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// sessions starts real sessions a (role=web), b (role=web) and c (role=db).
func sessions(t *testing.T) (cli.IO, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	root := testutil.Root(t)
	for id, role := range map[string]string{"a": "web", "b": "web", "c": "db"} {
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "role="+role, "--", "sleep", "60")
	}
	var out, errb bytes.Buffer
	return cli.IO{In: os.Stdin, Out: &out, Err: &errb, Root: root, Now: time.Now}, &out, &errb
}

func tags(t *testing.T, root, id string) map[string]string {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.Tags
}

func TestSelectAndChange(t *testing.T) {
	io, out, _ := sessions(t)
	if err := Run(Options{Filters: []string{"role=web"}, Args: []string{"x=1"}}, io); err != nil || out.String() != "Changed tags on 2 sessions.\n" {
		t.Fatalf("--filter-tag: %v %q", err, out)
	}
	if tags(t, io.Root, "a")["x"] != "1" || tags(t, io.Root, "b")["x"] != "1" || tags(t, io.Root, "c")["x"] != "" {
		t.Errorf("after --filter-tag role=web x=1: %v %v %v", tags(t, io.Root, "a"), tags(t, io.Root, "b"), tags(t, io.Root, "c"))
	}
	out.Reset()
	if err := Run(Options{Args: []string{"a", "c", "x=1"}, Rm: []string{"role"}}, io); err != nil || out.String() != "Changed tags on 2 sessions.\n" {
		t.Fatalf("by refs: %v %q", err, out)
	}
	if _, ok := tags(t, io.Root, "c")["role"]; ok {
		t.Errorf("--rm role left it on c: %v", tags(t, io.Root, "c"))
	}
	out.Reset()
	if err := Run(Options{All: true, JSON: true}, io); err != nil || !strings.Contains(out.String(), `"b": {`) {
		t.Fatalf("--all --json: %v %q", err, out)
	}
}

func TestNothingHalfWritten(t *testing.T) {
	io, out, _ := sessions(t)
	before := tags(t, io.Root, "a")
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: []string{"a", "nosuch", "x=1"}}, "Nothing was changed."},
		{Options{All: true, Args: []string{"x=1"}}, "--all would change the tags of 3 of 3 sessions; add --yes to apply"},
		{Options{Args: []string{"x=1"}}, "choose the sessions"},
		{Options{All: true, Filters: []string{"role=web"}}, "cannot be combined"},
		{Options{All: true, JSON: true, Args: []string{"x=1"}}, "--json is for reading"},
		{Options{All: true, Filters: []string{"novalue"}}, "has no '='"},
	} {
		err := Run(c.o, io)
		var ee cli.ExitCode
		if err == nil || errors.As(err, &ee) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	if out.Len() != 0 || len(tags(t, io.Root, "a")) != len(before) {
		t.Errorf("refused changes wrote: %q, tags %v", out, tags(t, io.Root, "a"))
	}
}

func TestCommandFillsOptions(t *testing.T) {
	var o Options
	pos, err := Command(&o).ParseArgs([]string{"--filter-tag", "role=web", "x=1", "--rm", "y", "-y"})
	if err != nil || len(pos) != 1 || pos[0] != "x=1" || len(o.Filters) != 1 || o.Filters[0] != "role=web" || len(o.Rm) != 1 || !o.Yes {
		t.Fatalf("parsed %q %v into %+v", pos, err, o)
	}
}
