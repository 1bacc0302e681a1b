// Command pty-up starts the sessions a pty.toml declares and brings the tags
// of those already running in line with the file.
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/ptyfile/manage"
)

func main() {
	c := cli.NewCommand("up", "pty up [DIR] [NAMES...]")
	c.Long = `Reads ./pty.toml, or DIR/pty.toml when the first argument is a directory
that has one, and starts every declared session that is not running (only
NAMES, when given). A session that is already running keeps running; its tags
are updated to match the file, and tags removed from the file are removed.

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
	args := c.Parse(os.Args[1:])
	path, keys, err := ptyfile.Find(args)
	cli.Check(err)
	f, err := ptyfile.Load(path)
	cli.Check(err)
	specs, err := f.Select(keys)
	cli.Check(err)
	root := cli.EnsureRoot()
	ctx, cancel := cli.Context()
	defer cancel()
	_, failed, err := manage.Up(ctx, root, f, specs, manage.Output{Out: os.Stdout, Err: os.Stderr})
	cli.Check(err)
	if failed > 0 {
		os.Exit(1)
	}
}
