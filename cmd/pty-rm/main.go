// Command pty-rm removes a stopped session's files.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

func main() {
	c := cli.NewCommand("rm", "pty rm REF")
	c.Long = `Removes the session's socket, pid file, metadata and event log. A running
session is refused: stop it with "pty kill" first. If its daemon is still
finishing its shutdown, rm waits for it (up to 7 s), so the same id can be
reused at once. Sessions tagged keep are removed too.

A session whose daemon died without stopping it (status vanished) may have
left processes running; rm stops them first (see "pty kill --help"), and
says so.`
	pos := c.Parse(os.Args[1:])
	if len(pos) != 1 {
		cli.Fatalf("rm takes one session: pty rm REF (see 'pty rm --help')")
	}
	root := cli.WritableRoot()
	s := cli.Resolve(root, pos[0])
	if s.Shown() == layout.Vanished {
		lr, err := leftovers.Stop(root, s.ID, s.Meta)
		cli.Check(err)
		if lr.Stopped > 0 {
			fmt.Println(leftovers.Message(s.ID, lr.Stopped))
		}
		if len(lr.Survivors) > 0 {
			cli.Fatalf("Session %q: processes its crashed daemon left are still running after TERM and KILL: %s; not removed.", s.ID, lifecycle.FormatPids(lr.Survivors))
		}
	}
	cli.Check(lifecycle.Remove(root, s, 0))
	fmt.Printf("Session %q removed.\n", s.ID)
}
