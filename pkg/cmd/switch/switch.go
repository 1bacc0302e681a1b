// Package switchcmd is "pty switch": from inside an attached session,
// move the pty client showing it to another session, as tmux's
// switch-client does. pty attach and the picker run inside a session do
// the same through Request. cmd/pty-switch only parses the command line
// and calls Run. (The directory is pkg/cmd/switch; switch is a keyword.)
package switchcmd

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// Options are switch's arguments.
type Options struct {
	Args []string // the session reference, alone
}

// Command declares switch's usage, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("switch", "pty switch REF",
		"Inside an attached session: show session REF in this terminal instead (tmux switch-client).")
	c.Long = `REF is a session id, a display name, or a unique prefix of either (see
"pty list"). Run inside a session that a pty client is attached to, it
moves that client to REF: the client leaves this session running, as a
detach does, and attaches to REF in the same terminal, writing REF's
history into the terminal's scrollback and drawing its screen, as
"pty attach REF" from outside would. With several clients attached to this
session, the one typed into last moves. Inside a session, "pty attach REF"
and the picker (pty) do the same.

Outside a session there is nothing to switch: use "pty attach REF". Inside
a session no pty client shows (it is not attached, or is shown by another
program), it is refused; "pty attach --force REF" nests REF there instead.
Any writable pty attach (or pty run) can be moved, whether it handed its
terminal to the session (Linux) or relays it (macOS, and "pty --remote HOST
attach", which moves to REF on the same host); a read-only one (-R) counts
as none.`
	return c
}

// ErrNoClient is Request's error when no pty client shows the current
// session to be moved.
var ErrNoClient = errors.New("no pty client shows this session")

// Run moves the client showing io's session to the session o.Args names.
func Run(o Options, io cli.IO) error {
	if len(o.Args) != 1 {
		return errors.New("switch takes one session reference, as in: pty switch ID (see 'pty switch --help')")
	}
	if io.Session == "" {
		return fmt.Errorf("pty switch moves the pty client showing the current session, but this is not inside a session ($PTY_SESSION is unset): to show %q in this terminal, use \"pty attach %s\"", o.Args[0], o.Args[0])
	}
	err := Request(io, io.Session, o.Args[0])
	if errors.Is(err, ErrNoClient) {
		return errs.Sentence(fmt.Sprintf("No pty client shows session %q to switch (it is not attached, or a program of another kind shows it): \"pty attach --force %s\" nests %q here instead", io.Session, o.Args[0], o.Args[0]), nil)
	}
	return err
}

// Request asks the daemon of session current to move the pty client
// showing it to the session ref names, which must be running. ErrNoClient
// means no client can be moved (whatever ref is: nothing could switch
// anyway); any other error is one line for the user, and nothing has
// switched.
func Request(io cli.IO, current, ref string) error {
	s, err := target(io, current, ref)
	if err != nil {
		if !CanSwitch(io, current) {
			return ErrNoClient
		}
		return err
	}
	ok, err := client.RequestSwitch(io.Root, current, s.ID)
	if err != nil || !ok {
		// A session whose daemon does not answer has no client to move.
		return ErrNoClient
	}
	return nil
}

// target is the running session ref names, other than current.
func target(io cli.IO, current, ref string) (layout.Session, error) {
	s, err := layout.At(io.Root).Resolve(ref)
	if err != nil {
		return s, err
	}
	if s.ID == current {
		return s, errs.Sentence(fmt.Sprintf("Already in session %q.", s.ID), nil)
	}
	if s.Shown() != layout.Running {
		return s, errs.Sentence(fmt.Sprintf("Session %q is not running (status: %s): \"pty restart %s\" starts it again, then switch to it.", s.ID, s.Shown(), s.ID), nil)
	}
	return s, nil
}

// CanSwitch reports whether a pty client shows session current that
// Request could move.
func CanSwitch(io cli.IO, current string) bool {
	ok, err := client.RequestSwitch(io.Root, current, "")
	return err == nil && ok
}
