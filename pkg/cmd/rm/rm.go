// Package rm is "pty rm": remove a stopped session's files. cmd/pty-rm
// only parses the command line and calls Run.
package rm

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// Options are rm's arguments.
type Options struct {
	Args []string // REF
}

// Command declares rm's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("rm", "pty rm REF")
	c.Long = `Removes the session's socket, pid file, metadata and event log. A running
session is refused: stop it with "pty kill" first. If its daemon is still
finishing its shutdown, rm waits for it (up to 7 s), so the same id can be
reused at once. Sessions tagged keep are removed too.

A session whose daemon died without stopping it (status vanished) may have
left processes running; rm stops them first (see "pty kill --help"), and
says so. One whose daemon still runs, found by its identity, but whose
socket and pid file were deleted is refused: it is publishing them again
(see "pty recover --help"); stop it with pty kill first.`
	return c
}

// Run removes the session o.Args names.
func Run(o Options, io cli.IO) error {
	if len(o.Args) != 1 {
		return errors.New("rm takes one session: pty rm REF (see 'pty rm --help')")
	}
	root := io.Root
	s, err := cli.ResolveToChange(root, o.Args[0])
	if err != nil {
		return err
	}
	if s.Shown() == layout.Vanished {
		if d, ok := registry.DaemonOf(root, s.ID, s.Meta.Generation); ok && s.Meta.Generation != "" {
			// Its files were deleted under it, and it publishes them again.
			return cli.Sentencef("Session %q is still running (daemon pid %d), though its socket or pid file was deleted: it publishes them again within seconds. Stop it first: pty kill %s", s.ID, d.Proc.Pid, s.ID)
		}
		lr, err := leftovers.Stop(root, s.ID, s.Meta)
		if err != nil {
			return err
		}
		if lr.Stopped > 0 {
			fmt.Fprintln(io.Out, leftovers.Message(s.ID, lr.Stopped))
		}
		if len(lr.Survivors) > 0 {
			return cli.Sentencef("Session %q: processes its crashed daemon left are still running after TERM and KILL: %s; not removed.", s.ID, lifecycle.FormatPids(lr.Survivors))
		}
	}
	if err := lifecycle.Remove(root, s, 0); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "Session %q removed.\n", s.ID)
	return nil
}
