// Command pty-attach connects this terminal to a session; Ctrl+\ (or the
// --detach-key) detaches.
// The work is in pkg/cmd/attach.
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/attach"
)

func main() {
	client.IgnoreQuitKey()
	c := cli.NewCommand("attach",
		"pty attach [-r] [--no-restart] [--force] [--detach-key KEY] [--history N] REF",
		"Attach this terminal to a session (Ctrl+\\ detaches).")
	c.Long = `REF is a session id or a unique display name. Press Ctrl+\ to detach; press
it twice quickly to send a Ctrl+\ to the program instead. --detach-key (or
PTY_DETACH_KEY) chooses another key, such as ctrl+a or ctrl+], or none.

The session's scrollback is written into this terminal's own scrollback
first, so you can scroll back to it as usual (--history N: only the last N
lines, 0 for none). Reattaching in the same terminal writes it again.

Detaching, the session ending, or this client being killed (TERM, INT or
HUP) resets the modes the program set on this terminal (alternate screen,
mouse, line drawing, ...). Killed, it prints [terminated] and exits with
128 plus the signal's number; the session keeps running.

If the session has ended, its last output is shown and you are asked
whether to restart it with the same command, directory and environment (in
the moment after its end while its daemon still answers, its final screen
and exit code are shown instead). With -r it is restarted without asking,
that moment included.
A restart clears gc's crash-loop bookkeeping (strategy.status=flapping and
its counters), as "pty restart" does.

Attaching needs a terminal on standard input. From a script or a pipe, use
"pty peek REF" to read the screen, "pty peek -f REF" to follow it, and
"pty send REF ..." to type into it.`
	var o attach.Options
	fs := c.Flags
	fs.BoolVar(&o.Restart, "auto-restart", false, "restart an ended session without asking")
	c.Alias("r", "auto-restart")
	fs.BoolVar(&o.NoRestart, "no-restart", false, "fail instead of offering to restart an ended session")
	fs.BoolVar(&o.Force, "force", false, "attach even from inside a session")
	o.DetachKey = c.DetachKeyFlag()
	fs.Var(&o.History, "history", client.HistoryUsage)
	c.Env("history", client.HistoryEnv)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(attach.Run(context.Background(), o, cli.System(cli.Root())))
}
