// Command pty-attach connects this terminal to a session; Ctrl+\ detaches.
// The work is in pkg/cmd/attach.
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/attach"
)

func main() {
	c := cli.NewCommand("attach",
		"pty attach [-r] [--no-restart] [--force] REF",
		"Attach this terminal to a session (Ctrl+\\ detaches).")
	c.Long = `REF is a session id or a unique display name. Press Ctrl+\ to detach; press
it twice quickly to send a Ctrl+\ to the program instead.

If the session has ended, its last output is shown and you are asked
whether to restart it with the same command, directory and environment.
A restart clears gc's crash-loop bookkeeping (strategy.status=flapping and
its counters), as "pty restart" does.`
	var o attach.Options
	fs := c.Flags
	fs.BoolVar(&o.Restart, "auto-restart", false, "restart an ended session without asking")
	c.Alias("r", "auto-restart")
	fs.BoolVar(&o.NoRestart, "no-restart", false, "fail instead of offering to restart an ended session")
	fs.BoolVar(&o.Force, "force", false, "attach even from inside a session")
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(attach.Run(context.Background(), o, cli.System(cli.Root())))
}
