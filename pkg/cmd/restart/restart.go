// Package restart is "pty restart": start a session again from its stored
// settings. cmd/pty-restart only parses the command line and calls Run.
package restart

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// Options are restart's flags and arguments.
type Options struct {
	Yes   bool     // -y, --yes
	Force bool     // --force
	Args  []string // REF
}

// Command declares restart's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("restart", "pty restart [-y] [--force] REF")
	c.Long = `Starts the session's command again with its stored cwd, size, environment
settings, tags and display name, under the same id. A running session is
killed first, as "pty kill" does (its command is hung up as by a closing
terminal, so a shell saves its history and hangs its jobs up; SIGTERM 1 s
later, SIGKILL 1.5 s after that: see "pty kill --help"), after asking "Kill
and restart? [Y/n]"; -y skips the question, and is required when stdin is
not a terminal. The new run starts once nothing of the old one is left.
gc's crash-loop bookkeeping tags (strategy.status and friends) are
cleared. restart does not attach: use "pty attach REF" afterwards.

An AI agent's session (tagged role=agent, or a "claude ... --resume"
command) is refused unless --force: restarting it throws away its
conversation.`
	c.Flags.BoolVar(&o.Yes, "yes", false, "kill a running session without asking")
	c.Alias("y", "yes")
	c.Flags.BoolVar(&o.Force, "force", false, "restart an AI agent's session too")
	return c
}

// Run restarts the session o.Args names, asking on io first when it is
// running and o.Yes is not set.
func Run(ctx context.Context, o Options, io cli.IO) error {
	if len(o.Args) != 1 {
		return errors.New("restart takes one session: pty restart [-y] REF (see 'pty restart --help')")
	}
	root := io.Root
	s, err := cli.ResolveToChange(root, o.Args[0])
	if err != nil {
		return err
	}
	if lifecycle.IsAgent(s.Meta) && !o.Force {
		return cli.Sentencef("Session %q runs an AI agent; restarting it throws away its conversation. Pass --force to restart it anyway.", s.ID)
	}
	if s.Shown() == layout.Running && !o.Yes {
		if io.In == nil || !term.IsTerminal(int(io.In.Fd())) {
			return cli.Sentencef("Session %q is running; pass -y to kill and restart it without a prompt.", s.ID)
		}
		fmt.Fprintf(io.Err, "Session %q is running. Kill and restart? [Y/n] ", s.ID)
		line, _ := bufio.NewReader(io.In).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
		default:
			fmt.Fprintln(io.Err, "Not restarted.")
			return nil
		}
	}
	if _, err := lifecycle.Relaunch(ctx, root, s, lifecycle.RelaunchOptions{Stop: true}); err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "Session %q restarted.\n", s.ID)
	return nil
}
