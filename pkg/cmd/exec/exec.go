// Package exec is "pty exec": from inside a session, make another command
// the session's command (what restart and gc's respawn run from now on)
// and run it. cmd/pty-exec only parses the command line and calls Run.
package exec

import (
	"errors"
	"fmt"
	"os"
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
session_exec event {previousCommand, command}; then becomes CMD (exec, so
the same process, terminal and process group): every signal reaches CMD
once and as it was sent, and the shell that ran pty exec gets CMD's status.

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
	return replace(path, o.Args, cio)
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

// replace makes this process the command: exec(2), with the
// environment the command was given. A child that this process passed
// signals on to would get every signal sent to their process group twice,
// directly and passed on (a shell hanging its job up, the kernel hanging
// up the terminal's foreground group, the daemon's SIGTERM to the
// session's groups, SIGWINCH), and would inherit what this process
// ignores to keep out of the child's way (Ctrl+C, Ctrl+\). A variable so
// that the package's tests, which run Run in the test binary, can stand in
// for it.
var replace = func(path string, args []string, cio cli.IO) error {
	err := syscall.Exec(path, args, cio.Env)
	return fmt.Errorf("run %s: %v (the session's command is now recorded as %s)", path, err, strings.Join(args, " "))
}
