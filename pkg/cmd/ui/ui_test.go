package ui

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

// The picker itself needs a terminal and is driven through tmux in
// cmd/pty-ui; these are the refusals before it starts, which must leave
// even the root uncreated.
func TestRunRefusesBeforeDrawing(t *testing.T) {
	root := testutil.Root(t) + "/not-yet"
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	var out, errb bytes.Buffer
	io := cli.IO{In: r, Out: &out, Err: &errb, Root: root, Now: time.Now}
	c := func(args ...string) Options {
		var o Options
		c := Command(&o)
		pos, err := c.ParseArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		o.Args = pos
		return o
	}
	for _, tc := range []struct {
		o       Options
		session string
		want    string
	}{
		{c("web"), "", `pty: ui takes no arguments, got "web" (to attach directly: pty attach web)`},
		{c("--filter-tag", "role"), "", `pty: --filter-tag "role" has no '=': write it as KEY=VALUE`},
		{c(), "outer", `pty: already inside pty session "outer": the picker would nest. Detach first with Ctrl+\, or pass --force`},
		{c("--detach-key", "ctrl+a"), "outer", `pty: already inside pty session "outer": the picker would nest. Detach first with Ctrl+A, or pass --force`},
		{c("--force"), "outer", "pty: the picker needs a terminal: in scripts use 'pty list', 'pty peek ID' and 'pty send ID ...'"},
		{c(), "", "pty: the picker needs a terminal: in scripts use 'pty list', 'pty peek ID' and 'pty send ID ...'"},
	} {
		io.Session = tc.session
		if err := Run(tc.o, io); err == nil || cli.Message(err) != tc.want {
			t.Errorf("%q inside %q: %v, want %q", tc.o.Args, tc.session, err, tc.want)
		}
	}
	// A bad PTY_DETACH_KEY is Run's error, from the environment in IO.
	io.Session, io.Env = "outer", []string{"PTY_DETACH_KEY=bogus"}
	if err := Run(c(), io); err == nil || !strings.HasPrefix(cli.Message(err), "pty: PTY_DETACH_KEY=") {
		t.Errorf("a bad PTY_DETACH_KEY: %v", err)
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("refusals printed %q %q", out.String(), errb.String())
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("a refused picker created the root: %v", err)
	}
}
