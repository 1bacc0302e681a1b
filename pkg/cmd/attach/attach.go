// Package attach is `pty attach`: connect the user's terminal to a
// session, offering to start an ended one again. cmd/pty-attach only
// parses the command line and calls Run, which does the work against the
// streams, root and environment it is given.
package attach

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	switchcmd "github.com/ptyorg/pty/pkg/cmd/switch"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/proto"
)

// Options are pty attach's flags and arguments.
type Options struct {
	Args      []string // the session reference, alone
	Restart   bool     // -r: restart an ended session without asking
	NoRestart bool     // --no-restart: fail instead of offering a restart
	Force     bool     // --force: attach even from inside a session
	ReadOnly  bool     // -R: watch without typing or sizing the session
	// DetachKey is the key that detaches (--detach-key, PTY_DETACH_KEY).
	// nil means Ctrl+\.
	DetachKey detachkey.Source
	// History is how much of the session's scrollback goes into the
	// terminal's own scrollback first (--history, PTY_ATTACH_HISTORY).
	History client.History
	// StreamFD is --attach-stream-fd-v1 (stream.go).
	StreamFD StreamFD
}

// Command declares attach's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("attach",
		"pty attach [-r | -R] [--no-restart] [--force] [--detach-key KEY] [--history N] [--attach-stream-fd-v1 FD] REF",
		"Attach this terminal to a session (Ctrl+\\ detaches).")
	c.Long = `REF is a session id, a display name, or a unique prefix of either (see
"pty list"). Press Ctrl+\ to detach; press it twice quickly to send a Ctrl+\ to the program instead
(a different key pressed right after it detaches too, and is not sent). --detach-key (or
PTY_DETACH_KEY) chooses another key, such as ctrl+a or ctrl+], or none; the keys a terminal sends
for Enter, Tab, Backspace and Escape (ctrl+m, ctrl+j, ctrl+i, ctrl+h, ctrl+[) are refused.

The session's scrollback is written into this terminal's own scrollback
first, so you can scroll back to it as usual (--history N: only the last N
lines, 0 for none). Reattaching in the same terminal writes it again.

-R (--read-only) watches: the screen and history as any attach, but what
you type is not sent (only the detach key is read, and one press detaches)
and your terminal's size does not change the session's, which stays the
smallest of the writable clients'. It is tmux's "attach -r". An ended
session is not restarted by a read-only attach.

Detaching, the session ending, or this client being killed (TERM, INT or
HUP) resets the modes the program set on this terminal (alternate screen,
mouse, line drawing, ...). Killed, it prints [terminated] and exits with
128 plus the signal's number; the session keeps running.

If the session has ended, its last output is shown and you are asked
whether to restart it with the same command, directory and environment (in
the moment after its end while its daemon still answers, its final screen
and exit code are shown instead). With -r it is restarted without asking,
that moment included.
A restart clears gc's crash-loop bookkeeping (strategy.status=flapping and
its counters), as "pty restart" does.

Inside a session that a pty client shows, "pty attach REF" does not nest:
it moves that client to REF, as tmux's switch-client (see "pty switch").
Where no pty client shows it (a terminal of another kind), it is refused;
--force nests. -R inside a session is refused likewise: a switch is never
read-only.

While attached, the terminal's title is "pty: NAME" (the session's display
name, or its id): your own title is pushed on the terminal's title stack
(CSI 22 t) and popped (CSI 23 t) when you detach, the session ends or you
switch. Titles the program sets show as usual. PTY_SET_TITLE=0 leaves the
title alone.

Attaching needs a terminal on standard input. From a script or a pipe, use
"pty peek REF" to read the screen, "pty peek -f REF" to follow it, and
"pty send REF ..." to type into it.

--remote HOST (or PTY_REMOTE=HOST) attaches to a session on another host
over ssh, REF resolved there, with this terminal's detach key and history;
when the connection drops it says so and reconnects. A session that
exits meanwhile ends it as on this host: [REF exited with code N], exit N.
See 'pty remote --help' and docs/remote.md.

` + streamHelp
	fs := c.Flags
	fs.BoolVar(&o.Restart, "auto-restart", false, "restart an ended session without asking")
	c.Alias("r", "auto-restart")
	fs.BoolVar(&o.ReadOnly, "read-only", false, "watch only: keys are not sent and the session's size is not changed (tmux attach -r)")
	c.Alias("R", "read-only")
	fs.BoolVar(&o.NoRestart, "no-restart", false, "fail instead of offering to restart an ended session")
	fs.BoolVar(&o.Force, "force", false, "attach here even inside a session, nested, instead of switching")
	o.DetachKey = c.DetachKeyFlag()
	fs.Var(&o.History, "history", client.HistoryUsage)
	c.Env("history", client.HistoryEnv)
	fs.Var(streamFlag{&o.StreamFD}, "attach-stream-fd-v1", "write the session's frames to descriptor `FD` instead of drawing them (see above)")
	return c
}

// Run attaches io's terminal to the session and returns when the user
// detaches (nil) or the session exits (its exit code as a cli.ExitCode).
func Run(ctx context.Context, o Options, io cli.IO) error {
	if o.StreamFD.Set {
		return runStream(o, io)
	}
	if o.Restart && o.NoRestart {
		return errors.New("-r and --no-restart contradict each other: use one")
	}
	if o.Restart && o.ReadOnly {
		return errors.New("-r and -R contradict each other: a read-only attach does not restart the session; restart it with \"pty restart REF\", then attach with -R")
	}
	if len(o.Args) != 1 {
		return errors.New("attach takes one session reference, as in: pty attach ID (see 'pty attach --help')")
	}
	if outer := io.Getenv("PTY_SESSION"); outer != "" && !o.Force {
		key, err := o.DetachKey.Key(io.Getenv)
		if err != nil {
			return err
		}
		// As tmux's switch-client: the pty client showing this session
		// moves to the other one. A read-only attach is not a switch.
		if !o.ReadOnly {
			err := switchcmd.Request(io, outer, o.Args[0])
			if !errors.Is(err, switchcmd.ErrNoClient) {
				return err
			}
		}
		return fmt.Errorf("already inside pty session %q: attaching here would nest sessions. Detach first%s, or pass --force", outer, key.With())
	}
	s, err := layout.At(io.Root).Resolve(o.Args[0])
	if err != nil {
		return err
	}
	// An exited session whose daemon still answers for its grace period
	// is exited all the same (layout.StatusOf): without -r the attach
	// shows its final screen and exit code from that daemon, however the
	// race between its end and the attach went; -r restarts it, Relaunch
	// waiting for that daemon to finish.
	if s.Shown() == layout.Running || s.Shown() == layout.Exited && !o.Restart {
		if conn, err := client.Dial(io.Root, s.ID); err == nil {
			key, err := o.DetachKey.Key(io.Getenv) // a bad key is said first
			if err != nil {
				conn.Close()
				return err
			}
			if err := NeedTerminal(io.In, "pty attach", s.ID); err != nil {
				conn.Close()
				return err
			}
			return session(conn, s.ID, key, &o.History, o.ReadOnly, io)
		}
		if n, err := layout.At(io.Root).Load(s.ID); err == nil {
			s = n
		}
		if s.Shown() == layout.Running {
			return errs.Sentence(fmt.Sprintf("Session %q is not answering on its socket; try again, or stop it with \"pty kill %s\"", s.ID, s.ID), nil)
		}
	}
	if err := s.DamagedErr(); err != nil {
		return err // neither served nor restartable
	}
	if o.NoRestart {
		return errs.Sentence(fmt.Sprintf("Session %q is not running (status: %s).", s.ID, s.Shown()), nil)
	}
	if o.ReadOnly {
		return errs.Sentence(fmt.Sprintf("Session %q is not running (status: %s), and a read-only attach does not restart it: \"pty peek %s\" shows what it left, \"pty restart %s\" starts it again.", s.ID, s.Shown(), s.ID, s.ID), nil)
	}
	if o.Restart {
		describe(s, io)
	} else if !confirm(s, io) {
		return nil
	}
	key, err := o.DetachKey.Key(io.Getenv)
	if err != nil {
		return err
	}
	if err := NeedTerminal(io.In, "pty attach", s.ID); err != nil {
		return err // before restarting what could not be shown
	}
	// The user's terminal may differ from the one the session was made in.
	rows, cols := client.TermSize(io.OutFile(), io.In)
	id, err := lifecycle.Relaunch(ctx, io.Root, s, lifecycle.RelaunchOptions{Env: io.Env, Rows: rows, Cols: cols})
	if err != nil {
		return err
	}
	conn, err := client.Dial(io.Root, id)
	if err != nil {
		return errs.Sentence(fmt.Sprintf("Session %q restarted but is not answering: %v", id, err), nil)
	}
	return Session(conn, id, key, &o.History, io)
}

// NeedTerminal refuses an attach whose keyboard is not a terminal, as
// tmux does: raw mode, the size and the detach key need one, and a pipe
// would get a stream of screen updates that never ends. cmd names the
// command in the message; id is the session, "" when not yet known.
func NeedTerminal(in *os.File, cmd, id string) error {
	if in != nil && term.IsTerminal(int(in.Fd())) {
		return nil
	}
	ref := id
	if ref == "" {
		ref = "ID"
	}
	hint := fmt.Sprintf("to read the screen use \"pty peek %s\" (or \"pty peek -f %s\" to follow it), to type into it \"pty send %s ...\"", ref, ref, ref)
	if cmd == "pty run" {
		return errs.Sentence("pty run attaches to the session it starts and needs a terminal, but standard input is not one: add -d to start it in the background; then "+hint, nil)
	}
	return errs.Sentence(fmt.Sprintf("%s needs a terminal, but standard input is not one: %s", cmd, hint), nil)
}

// describe shows how the session ended: its final screen's last lines,
// its exit and its command.
func describe(s layout.Session, io cli.IO) {
	for _, l := range s.Meta.LastLines {
		fmt.Fprintln(io.Out, l)
	}
	if s.Meta.ExitCode != nil {
		fmt.Fprintf(io.Out, "Session %q exited with code %d\n", s.ID, *s.Meta.ExitCode)
	} else {
		fmt.Fprintf(io.Out, "Session %q %s without an exit record\n", s.ID, s.Shown())
	}
	fmt.Fprintf(io.Out, "Command was: %s\n", s.Meta.DisplayCommand)
}

// confirm shows how the session ended and asks whether to restart it. No
// answer (input closed) is a no: better do nothing than guess.
func confirm(s layout.Session, io cli.IO) bool {
	describe(s, io)
	fmt.Fprint(io.Out, "Restart? [Y/n] ")
	line, err := bufio.NewReader(io.In).ReadString('\n')
	if err != nil && strings.TrimSpace(line) == "" {
		fmt.Fprintln(io.Out)
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "", "y", "yes":
		return true
	}
	return false
}

// Session runs an attached client on conn until the user detaches (nil) or
// the session exits (its code as a cli.ExitCode). name is how messages
// call the session. pty run attaches the same way.
func Session(conn *client.Conn, name string, key detachkey.Key, history *client.History, io cli.IO) error {
	return session(conn, name, key, history, false, io)
}

// session is Session, read-only when readOnly: the connection is a
// follower (PEEK with the writable baseline, history first, and the exact
// screen on redraws), which the daemon neither types into nor sizes by.
func session(conn *client.Conn, name string, key detachkey.Key, history *client.History, readOnly bool, io cli.IO) error {
	defer conn.Close()
	ao := client.AttachOptions{In: io.In, Out: io.Out, OutFile: io.OutFile(), Name: name, DetachKey: key}
	if readOnly {
		ao.ReadOnly = true
		ao.PeekFlags = proto.PeekFull | proto.PeekRedraw | proto.PeekFollow
	}
	if history != nil {
		history.Apply(&ao)
	}
	if io.Getenv(TitleEnv) != "0" {
		ao.Title = title(io.Root, name)
	}
	if !readOnly {
		ao.Switch = func(id string) (*client.Conn, string, string, error) { return switchTo(io.Root, id) }
	}
	res, err := client.Attach(conn, ao)
	if err != nil {
		fmt.Fprintln(io.Err, "pty: "+err.Error())
		return cli.ExitCode(1)
	}
	if res.Signal != 0 {
		return cli.ExitCode(128 + int(res.Signal))
	}
	if res.Exited && res.Code != 0 {
		return cli.ExitCode(res.Code)
	}
	return nil
}

// TitleEnv, set to 0, keeps attach from setting the terminal's title.
const TitleEnv = "PTY_SET_TITLE"

// title is the terminal's title while attached to session id: its display
// name, else its id.
func title(root, id string) string {
	if s, err := layout.At(root).Load(id); err == nil {
		return "pty: " + s.Name()
	}
	return "pty: " + id
}

// switchTo connects to session id for a client that a command in its
// session moves there (pty switch).
func switchTo(root, id string) (*client.Conn, string, string, error) {
	s, err := layout.At(root).Load(id)
	if err != nil {
		return nil, "", "", err
	}
	if s.Shown() != layout.Running {
		return nil, "", "", fmt.Errorf("session %q is not running (status: %s)", s.ID, s.Shown())
	}
	conn, err := client.Dial(root, s.ID)
	if err != nil {
		return nil, "", "", err
	}
	return conn, s.ID, "pty: " + s.Name(), nil
}
