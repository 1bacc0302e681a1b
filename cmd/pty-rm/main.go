// Command pty-rm removes a stopped session's files.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

func main() {
	c := cli.NewCommand("rm", "pty rm REF", "remove a stopped session's files")
	c.Long = `Removes the session's socket, pid file, metadata and event log. A running
session is refused: stop it with "pty kill" first. If its daemon is still
finishing its shutdown, rm waits for it (up to 7 s), so the same id can be
reused at once. Sessions tagged keep are removed too.`
	pos := c.Parse(os.Args[1:])
	if len(pos) != 1 {
		cli.Fatalf("rm takes one session: pty rm REF (see 'pty rm --help')")
	}
	root := cli.WritableRoot()
	s := cli.Resolve(root, pos[0])
	cli.Check(lifecycle.Remove(root, s, 0))
	fmt.Printf("Session %q removed.\n", s.ID)
}
