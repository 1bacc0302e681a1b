package switchcmd

import (
	"bytes"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

// What pty switch says where nothing can switch; the switching itself
// needs a client in a terminal and is driven through tmux in test/switch.
func TestRunRefusals(t *testing.T) {
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: testutil.Root(t), Now: time.Now}
	for _, tc := range []struct {
		args    []string
		session string
		want    string
	}{
		{nil, "outer", "pty: switch takes one session reference, as in: pty switch ID (see 'pty switch --help')"},
		{[]string{"a", "b"}, "outer", "pty: switch takes one session reference, as in: pty switch ID (see 'pty switch --help')"},
		{[]string{"web"}, "", `pty: pty switch moves the pty client showing the current session, but this is not inside a session ($PTY_SESSION is unset): to show "web" in this terminal, use "pty attach web"`},
		// An unknown session where no client could switch anyway: that
		// is what matters.
		{[]string{"web"}, "outer", `No pty client shows session "outer" to switch (it is not attached, or a program of another kind shows it): "pty attach --force web" nests "web" here instead`},
	} {
		io.Session = tc.session
		if err := Run(Options{Args: tc.args}, io); err == nil || cli.Message(err) != tc.want {
			t.Errorf("%q inside %q: %v, want %q", tc.args, tc.session, err, tc.want)
		}
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("refusals printed %q %q", out.String(), errb.String())
	}
}
