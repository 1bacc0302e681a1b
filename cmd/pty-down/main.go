// Command pty-down stops the sessions a pty.toml started.
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/ptyfile/manage"
)

func main() {
	c := cli.NewCommand("down", "pty down [DIR] [NAMES...]")
	c.Long = `Stops every session started from ./pty.toml (or DIR/pty.toml when the first
argument is a directory that has one), or only NAMES, and removes their
records. The permanent strategy tag is removed first, so gc does not bring
them back. Sessions whose name was since removed from the file are stopped
too: they still carry the file's tag. Each session is stopped under the lock
pty up and gc's respawn take for it, so one they are starting is waited for
and stopped, not left running.`
	args := c.Parse(os.Args[1:])
	path, keys, err := ptyfile.Find(args)
	cli.Check(err)
	f, err := ptyfile.Load(path)
	cli.Check(err)
	root := cli.WritableRoot()
	_, failed, err := manage.Down(root, f, keys, manage.Output{Out: os.Stdout, Err: os.Stderr})
	cli.Check(err)
	if failed > 0 {
		os.Exit(1)
	}
}
