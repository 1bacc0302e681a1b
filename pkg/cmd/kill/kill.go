// Package kill is "pty kill": stop a session and everything it started,
// keeping its record so peek and restart still work. cmd/pty-kill only
// parses the command line and calls Run.
package kill

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// Options are kill's arguments.
type Options struct {
	Args []string // REF
}

// Command declares kill's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("kill", "pty kill REF")
	c.Long = `The daemon gets SIGTERM and stops the session's processes as closing a
terminal does: SIGHUP to the session's command (an interactive shell
saves its history and passes the hangup on to its jobs; the kernel hangs
the terminal's foreground process group up when the command exits; only
when the command ignores SIGHUP does the daemon hang that group up
itself), then, 1 s later, SIGHUP to a shell left that it did not reach
(one pty up started through sh -c, running a job) and SIGTERM to whatever
is left, and SIGKILL 1.5 s after that. Each process gets each signal once
from the daemon. pty list then shows how it ended: "killed (SIGHUP)", or
"exit N" for a program that exited on the hangup. pty kill waits up to 7 s for the daemon, then
checks that nothing the session started is still running (by pid and
start time, taken before signalling) and signals any survivor's process
group, TERM then KILL. "Session X killed." is printed
only when nothing of the session is left; otherwise the leftover pids are
listed on stderr and the exit status is 1.

A session whose daemon died without stopping it (SIGKILL, a crash: status
vanished) may have left processes running. kill finds them by the
PTY_SESSION, PTY_SESSION_GENERATION and PTY_ROOT its daemon put in their
environment (and by their start time: nothing older than the session)
and stops them the same way, saying "daemon was gone; stopped N leftover
processes". With nothing left, it says the session is not running.

A pid from the session's pid file is signalled only once it proves to be
this session's daemon (its arguments name the session, its generation and
its root): a pid reused by another process is never signalled.

A permanent session loses its strategy tag first, so gc does not start it
again. The record stays (status exited) until "pty rm" or gc removes it;
an ephemeral session's record is removed by its daemon.

A session whose command has just exited is still served by its daemon
for a moment (its final screen); kill ends that at once, waits for the
daemon to be gone, keeps the record and says the session is not running.`
	return c
}

// Run stops the session o.Args names.
func Run(o Options, io cli.IO) error {
	if len(o.Args) != 1 {
		return errors.New("kill takes one session: pty kill REF (see 'pty kill --help')")
	}
	root := io.Root
	s, err := cli.ResolveToChange(root, o.Args[0])
	if err != nil {
		return err
	}
	res, err := lifecycle.Kill(root, s, lifecycle.KillOptions{})
	if err != nil {
		return err
	}
	if res.DaemonGone {
		if res.Leftovers > 0 {
			fmt.Fprintln(io.Out, leftovers.Message(s.ID, res.Leftovers))
		}
		if len(res.Survivors) > 0 {
			return cli.Sentencef("Session %q: these processes it left are still running after TERM and KILL: %s", s.ID, lifecycle.FormatPids(res.Survivors))
		}
		return nil
	}
	if len(res.Survivors) > 0 {
		fmt.Fprintf(io.Out, "Session %q daemon stopped.\n", s.ID)
		return cli.Sentencef("Session %q: these processes it started are still running: %s", s.ID, lifecycle.FormatPids(res.Survivors))
	}
	fmt.Fprintf(io.Out, "Session %q killed.\n", s.ID)
	return nil
}
