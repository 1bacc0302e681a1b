// Package ui is "pty ui", the interactive session picker: what `pty` opens
// when run with no arguments (also `pty i`). cmd/pty-ui only parses the
// command line and calls Run.
package ui

import (
	"fmt"
	"os"
	"os/exec"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/pkg/cli"
	switchcmd "github.com/ptyorg/pty/pkg/cmd/switch"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/picker"
)

// Options are ui's flags and arguments.
type Options struct {
	FilterTags   []string // --filter-tag K=V, repeatable
	PreselectNew bool     // --preselect-new
	Force        bool     // --force: even inside a session
	DetachKey    detachkey.Source
	Args         []string // none are taken
}

// Command declares ui's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("ui", "pty ui [--filter-tag K=V]... [--preselect-new] [--force] [--detach-key KEY]   (or just: pty)")
	c.Long = `Lists sessions (refreshed every second) with a filter line: type to narrow
the list; each word typed matches the id, display name, command, a tag or the
directory, with its letters in order within that one text (gaps allowed).
Matches as typed in a name come first, then in the command, a tag, the
directory, then those with gaps. The selected row is marked with ▸.
Enter attaches to the selected session; Ctrl+\
(or the --detach-key, or PTY_DETACH_KEY) detaches and comes back here. Selecting a session that exited offers to
restart it. "+ Create new session..." asks for a directory and a command
(default: $SHELL in the current directory) and attaches to the new session.

Keys: up/down (Ctrl+P/Ctrl+N) select; left/right, Home/End, Ctrl+A/Ctrl+E,
Alt+B/Alt+F (Alt+Left/Right) move by word; Backspace/Delete, Ctrl+U (to the
start), Ctrl+K (to the end), Ctrl+W (previous word) edit; Esc clears the
filter, and on an empty filter Esc or q quits.

The hosts of remotes.toml (see 'pty remote --help' and docs/remote.md)
follow this host's sessions, each in a group of its own: asked at once and
shown as they answer (again every 5 s), a host that fails with its error.
The filter matches their sessions too (and the host's name); Enter
attaches over "pty --remote HOST attach", and detaching comes back here.

--filter-tag scopes the list to sessions with that tag, and new sessions get
it. Inside a session (PTY_SESSION is set) that a pty client shows, choosing
a session moves that client to it, as "pty switch" does, and the picker
ends; where no pty client shows it, the picker refuses to run unless
--force is given (then it attaches nested).`
	c.Flags.Var((*cli.StringList)(&o.FilterTags), "filter-tag", "only sessions with tag `K=V`; new sessions get it (repeatable)")
	c.Flags.BoolVar(&o.PreselectNew, "preselect-new", false, "start with \"+ Create new session...\" selected")
	c.Flags.BoolVar(&o.Force, "force", false, "run even inside a pty session")
	o.DetachKey = c.DetachKeyFlag()
	return c
}

// Run shows the picker on io's terminal until the user quits.
func Run(o Options, io cli.IO) error {
	if len(o.Args) > 0 {
		return fmt.Errorf("ui takes no arguments, got %q (to attach directly: pty attach %s)", o.Args[0], o.Args[0])
	}
	filter := map[string]string{}
	for _, kv := range o.FilterTags {
		k, v, err := cli.ParseKV("--filter-tag", kv)
		if err != nil {
			return err
		}
		filter[k] = v
	}
	// Inside a session the picker switches the pty client showing it, as
	// pty attach there does (its attach child does the switching).
	switching := io.Session != "" && !o.Force
	if switching && !switchcmd.CanSwitch(io, io.Session) {
		key, err := o.DetachKey.Key(io.Getenv)
		if err != nil {
			return err
		}
		return fmt.Errorf("already inside pty session %q: the picker would nest. Detach first%s, or pass --force", io.Session, key.With())
	}
	out := io.OutFile()
	if io.In == nil || out == nil || !term.IsTerminal(int(io.In.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return fmt.Errorf("the picker needs a terminal: in scripts use 'pty list', 'pty peek ID' and 'pty send ID ...'")
	}
	if err := layout.EnsureRoot(io.Root); err != nil {
		return err
	}
	key, err := o.DetachKey.Key(io.Getenv)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = io.Getenv("HOME")
	}
	po := picker.Options{
		Root:            io.Root,
		FilterTags:      filter,
		PreselectNew:    o.PreselectNew,
		Cwd:             cwd,
		Shell:           io.Getenv("SHELL"),
		Home:            io.Getenv("HOME"),
		DetachKey:       key,
		QuitAfterAttach: switching,
	}
	if !switching {
		// A client inside a session is switched to a local session; one
		// on another host would be a nested attach, with two detach keys.
		po.Hosts = hosts(io, key)
	}
	if io.Session != "" && o.Force {
		// Nested, as asked: the attach would otherwise switch.
		po.Attach = func(id string) *exec.Cmd {
			cmd := picker.AttachCommand(io.Root, id, key)
			cmd.Args = append(cmd.Args[:1], append([]string{"--force"}, cmd.Args[1:]...)...)
			return cmd
		}
	}
	m := picker.New(po)
	if _, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(io.In), tea.WithOutput(out)).Run(); err != nil {
		return fmt.Errorf("picker: %v", err)
	}
	return nil
}
