// Package down is "pty down": stop the sessions a pty.toml started.
// cmd/pty-down only parses the command line and calls Run.
package down

import (
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/ptyfile/manage"
)

// Options are down's arguments.
type Options struct {
	Args []string // [DIR] [NAMES...]
}

// Command declares down's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("down", "pty down [DIR] [NAMES...]")
	c.Long = `Stops every session started from ./pty.toml (or DIR/pty.toml when the first
argument is a directory that has one), or only NAMES, and removes their
records. The permanent strategy tag is removed first, so gc does not bring
them back. Sessions whose name was since removed from the file are stopped
too: they still carry the file's tag. Each session is stopped under the lock
pty up and gc's respawn take for it, so one they are starting is waited for
and stopped, not left running.`
	return c
}

// Run stops the file's sessions, one line each on io; a session that
// could not be stopped makes the exit status 1.
func Run(o Options, io cli.IO) error {
	path, keys, err := ptyfile.Find(o.Args)
	if err != nil {
		return err
	}
	f, err := ptyfile.Load(path)
	if err != nil {
		return err
	}
	if err := rootdir.CheckWritable(io.Root); err != nil {
		return err
	}
	_, failed, err := manage.Down(io.Root, f, keys, manage.Output{Out: io.Out, Err: io.Err})
	if err != nil {
		return err
	}
	if failed > 0 {
		return cli.ExitCode(1)
	}
	return nil
}
