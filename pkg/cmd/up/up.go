// Package up is "pty up": start the sessions a pty.toml declares and bring
// the tags of those already running in line with the file. cmd/pty-up
// only parses the command line and calls Run.
package up

import (
	"context"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/ptyfile/manage"
)

// Options are up's arguments.
type Options struct {
	Args []string // [DIR] [NAMES...]
}

// Command declares up's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("up", "pty up [DIR] [NAMES...]")
	c.Long = `Reads ./pty.toml, or DIR/pty.toml when the first argument is a directory
that has one, and starts every declared session that is not running (only
NAMES, when given). A session that is already running keeps running; its tags
are updated to match the file, and tags removed from the file are removed;
gc's strategy.* bookkeeping is cleared too (a fixed file gets a fresh
start), but only the file's tags are reported as updated.

pty.toml:

  prefix = "myapp"                 # optional: display names are <prefix>-<name>

  [sessions.web]
  command = "npm run dev"          # required; runs with /bin/sh -c
  cwd = "frontend"                 # optional; relative to pty.toml's directory
  id = "myapp-web"                 # optional stable id (default: random)
  display_name = "web"             # optional
  tags = { strategy = "permanent" }  # permanent: gc respawns it when it dies
  env = { PORT = "3000" }
  scrollback = 50000               # optional; lines, 0 to 1000000 (default: $PTY_SCROLLBACK, else 10000)

A running session keeps the scrollback it started with; a change to it in
the file applies when the session starts again.

Sessions belong to the file through the tags ptyfile=<path of pty.toml> and
ptyfile.session=<name>; 'pty down' stops them. When gc respawns a permanent
session it re-reads the file, so edits take effect.

Each session is looked up and started under a lock of its own (the file
and the name), so several ups of one file at once start it once; the
others report it already running. The whole file is checked first: an
unknown field, a missing cwd or a NUL byte in a command, cwd or env value
is reported with its line, and nothing is started.`
	return c
}

// Run starts the file's sessions, one line each on io; a session that
// could not be started makes the exit status 1.
func Run(ctx context.Context, o Options, io cli.IO) error {
	path, keys, err := ptyfile.Find(o.Args)
	if err != nil {
		return err
	}
	f, err := ptyfile.Load(path)
	if err != nil {
		return err
	}
	specs, err := f.Select(keys)
	if err != nil {
		return err
	}
	if err := layout.EnsureRoot(io.Root); err != nil {
		return err
	}
	_, failed, err := manage.Up(ctx, io.Root, f, specs, manage.Output{Out: io.Out, Err: io.Err})
	if err != nil {
		return err
	}
	if failed > 0 {
		return cli.ExitCode(1)
	}
	return nil
}
