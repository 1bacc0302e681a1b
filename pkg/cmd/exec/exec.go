// Package exec is "pty exec": from inside a session, make another command
// the session's command (what restart and gc's respawn run from now on)
// and run it. cmd/pty-exec only parses the command line and calls Run.
package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

const usage = "pty exec -- CMD [ARGS...]"

// Options are exec's arguments.
type Options struct {
	Args []string // CMD [ARGS...]
}

// Command declares exec (it has no flags of its own), filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("exec", usage)
	c.Long = `Run inside a session only. Replaces the command the session records
(command, args and displayCommand in its metadata) with CMD, so that a later
pty restart, or gc's respawn of a permanent session, runs CMD; appends a
session_exec event {previousCommand, command}; then runs CMD as a child of
this process (same terminal, signals passed on) and exits with its status.

The session is the one $PTY_SESSION names, of the generation
$PTY_SESSION_GENERATION names (the session's daemon sets both). Nothing is
changed or run, and exec exits 1, when: it is run outside a session; the
session is managed by a pty.toml (its ptyfile tag: edit the pty.toml
instead); the session was replaced by a new generation since this process
started; or CMD cannot be found.

Examples:
  pty exec -- vim notes.md
  pty exec -- npm run dev`
	return c
}

// Parse reads exec's command line: CMD and its arguments start at the
// first word that is not one of exec's flags (--help), or after "--".
func Parse(c *cli.Command, o *Options, args []string) {
	o.Args = c.ParseUntilPositional(args)
}

// Run records o.Args as the session's command and runs it.
func Run(o Options, cio cli.IO) error {
	if len(o.Args) == 0 || o.Args[0] == "" {
		return cli.Sentencef("pty exec: no command given. Usage: pty exec -- CMD [ARGS...], as in: pty exec -- vim notes.md")
	}
	id := cio.Session
	if id == "" {
		return cli.Sentencef("pty exec: not inside a pty session ($PTY_SESSION is not set); it changes the command of the session it runs in, so run it there (start one with pty run).")
	}
	if err := layout.ValidateID(id); err != nil {
		return fmt.Errorf("$PTY_SESSION: %w", err)
	}
	gen := cio.Getenv("PTY_SESSION_GENERATION")
	if gen == "" {
		return cli.Sentencef("pty exec: session %q gave this process no generation ($PTY_SESSION_GENERATION is not set); restart it (pty restart %s) before using pty exec.", id, id)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("find the current directory: %v", err)
	}
	path, err := spawn.ResolveCommand(o.Args[0], cwd, cio.Getenv("PATH"))
	if err != nil {
		return err
	}
	if err := rootdir.CheckWritable(cio.Root); err != nil {
		return err
	}
	if err := record(cio.Root, id, gen, path, o.Args); err != nil {
		return err
	}
	return runChild(path, o.Args, cio)
}

// record makes path args the command of session id, if it is still of
// generation gen and not a pty.toml's, appending session_exec in the same
// locked step.
func record(root, id, gen, path string, args []string) error {
	display := strings.Join(args, " ")
	_, err := layout.At(root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		if m.Generation != gen {
			return nil, cli.Sentencef("pty exec: session %q belongs to a replacement generation; command was not run.", id)
		}
		if f, ok := m.Tag(layout.TagPtyfile); ok {
			return nil, cli.Sentencef("pty exec: session %q is managed by %s; edit the pty.toml to change its command instead. Command was not run.", id, f)
		}
		prev := m.DisplayCommand
		if prev == "" {
			prev = strings.Join(append([]string{m.Command}, m.Args...), " ")
		}
		m.Command, m.Args, m.DisplayCommand = path, append([]string{}, args[1:]...), display
		return []layout.Event{layout.NewEvent(id, layout.EventSessionExec, "previousCommand", prev, "command", display)}, nil
	})
	if errors.Is(err, layout.ErrNotFound) {
		return cli.Sentencef("pty exec: session %q has no record in %s; command was not run.", id, root)
	}
	return err
}

// runChild runs path as a child on this process's terminal and returns
// its exit status. Ctrl+C and Ctrl+\ reach the child from the terminal
// itself (it is in the terminal's foreground group with us), so they are
// only kept from ending this process; other signals sent to this process
// are passed on.
func runChild(path string, args []string, cio cli.IO) error {
	cmd := &osexec.Cmd{Path: path, Args: args, Env: cio.Env, Stdin: cio.In, Stdout: cio.Out, Stderr: cio.Err}
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s: %v (the session's command is now recorded as %s)", path, err, strings.Join(args, " "))
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *osexec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return cli.ExitCode(128 + int(ws.Signal()))
		}
		return cli.ExitCode(ee.ExitCode())
	}
	return err
}
