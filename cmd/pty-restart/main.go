// Command pty-restart starts a session again from its stored settings.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"golang.org/x/term"
)

func main() {
	c := cli.NewCommand("restart", "pty restart [-y] [--force] REF")
	c.Long = `Starts the session's command again with its stored cwd, size, environment
settings, tags and display name, under the same id. A running session is
killed first (as "pty kill" does) after asking "Kill and restart? [Y/n]";
-y skips the question, and is required when stdin is not a terminal.
gc's crash-loop bookkeeping tags (strategy.status and friends) are
cleared. restart does not attach: use "pty attach REF" afterwards.

An AI agent's session (tagged role=agent, or a "claude ... --resume"
command) is refused unless --force: restarting it throws away its
conversation.`
	yes := c.Flags.Bool("yes", false, "kill a running session without asking")
	c.Alias("y", "yes")
	force := c.Flags.Bool("force", false, "restart an AI agent's session too")
	pos := c.Parse(os.Args[1:])
	if len(pos) != 1 {
		cli.Fatalf("restart takes one session: pty restart [-y] REF (see 'pty restart --help')")
	}
	root := cli.WritableRoot()
	s := cli.Resolve(root, pos[0])
	if lifecycle.IsAgent(s.Meta) && !*force {
		cli.Fatalf("Session %q runs an AI agent; restarting it throws away its conversation. Pass --force to restart it anyway.", s.ID)
	}
	if s.Shown() == layout.Running && !*yes {
		if !term.IsTerminal(int(os.Stdin.Fd())) {
			cli.Fatalf("Session %q is running; pass -y to kill and restart it without a prompt.", s.ID)
		}
		fmt.Fprintf(os.Stderr, "Session %q is running. Kill and restart? [Y/n] ", s.ID)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
		default:
			fmt.Fprintln(os.Stderr, "Not restarted.")
			return
		}
	}
	ctx, cancel := cli.Context()
	defer cancel()
	_, err := lifecycle.Relaunch(ctx, root, s, lifecycle.RelaunchOptions{Stop: true})
	cli.Check(err)
	fmt.Printf("Session %q restarted.\n", s.ID)
}
