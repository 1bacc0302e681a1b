// Command pty-kill stops a session and everything it started, and keeps
// its record so peek and restart still work.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

func main() {
	c := cli.NewCommand("kill", "pty kill REF", "stop a session and everything it started; keep its record")
	c.Long = `The daemon gets SIGTERM and stops the session's processes; pty kill waits
up to 7 s for it, then checks that nothing the session started is still
running (by pid and start time, taken before signalling) and signals any
survivor's process group, TERM then KILL. "Session X killed." is printed
only when nothing of the session is left; otherwise the leftover pids are
listed on stderr and the exit status is 1.

A permanent session loses its strategy tag first, so gc does not start it
again. The record stays (status exited) until "pty rm" or gc removes it;
an ephemeral session's record is removed by its daemon.`
	pos := c.Parse(os.Args[1:])
	if len(pos) != 1 {
		cli.Fatalf("kill takes one session: pty kill REF (see 'pty kill --help')")
	}
	root := cli.WritableRoot()
	s := cli.Resolve(root, pos[0])
	res, err := lifecycle.Kill(root, s, lifecycle.KillOptions{})
	cli.Check(err)
	if len(res.Survivors) > 0 {
		fmt.Printf("Session %q daemon stopped.\n", s.ID)
		cli.Fatalf("Session %q: these processes it started are still running: %s", s.ID, lifecycle.FormatPids(res.Survivors))
	}
	fmt.Printf("Session %q killed.\n", s.ID)
}
