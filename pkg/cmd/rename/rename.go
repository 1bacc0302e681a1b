// Package rename is "pty rename": show, set or clear a session's display
// name. cmd/pty-rename only parses the command line and calls Run.
package rename

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// Options are rename's flags and arguments.
type Options struct {
	Show  bool     // --show
	Clear bool     // --clear
	Args  []string // [REF] [NEW]
}

// Command declares rename's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("rename",
		"pty rename NEW | pty rename REF NEW | pty rename --show [REF] | pty rename --clear [REF]")
	c.Long = `The display name is a label for people: it need not be unique, and the
session's id never changes. A display name resolves as a reference only
while no other session has it. It is one trimmed line of at most 160
characters, without control characters or invisible formatting characters
(bidi controls, zero-width characters, BOM), which would make it display as
something else.

Inside a session ($PTY_SESSION set) REF may be left out and means that
session. A change appends one display_name_change event; setting the name a
session already has changes nothing.

Examples:
  pty rename "API server"            (inside a session)
  pty rename k3x9mz2a "API server"
  pty rename --show k3x9mz2a
  pty rename --clear k3x9mz2a`
	c.Flags.BoolVar(&o.Show, "show", false, "print the display name (nothing when there is none)")
	c.Flags.BoolVar(&o.Clear, "clear", false, "remove the display name")
	return c
}

// Run shows, clears or sets the display name o asks for.
func Run(o Options, io cli.IO) error {
	if o.Show && o.Clear {
		return errors.New("--show and --clear cannot be combined")
	}
	root := io.Root
	if !o.Show {
		if err := rootdir.CheckWritable(root); err != nil {
			return err
		}
	}
	resolve := func(args []string) (layout.Session, error) {
		s, err := cli.ResolveOrCurrent(root, firstArg(args), io.Session, "give a session id or name")
		if err != nil {
			return s, err
		}
		return s, s.DamagedErr()
	}
	args := o.Args
	if o.Show || o.Clear {
		if len(args) > 1 {
			return fmt.Errorf("too many arguments: pty rename --%s [REF]", map[bool]string{true: "show", false: "clear"}[o.Show])
		}
		s, err := resolve(args)
		if err != nil {
			return err
		}
		if o.Show {
			if s.Meta.DisplayName != nil {
				fmt.Fprintln(io.Out, *s.Meta.DisplayName)
			}
			return nil
		}
		_, _, err = layout.At(root).SetDisplayName(s.ID, nil)
		return err
	}

	var name string
	switch len(args) {
	case 0:
		return errors.New("no name given: pty rename NEW (inside a session) or pty rename REF NEW")
	case 1:
		name, args = args[0], nil
	case 2:
		name, args = args[1], args[:1]
	default:
		return errors.New("too many arguments: quote a name with spaces, as in: pty rename REF \"API server\"")
	}
	// Check the name before resolving, so a bad name is reported as such
	// even when the session is also wrong.
	if err := layout.ValidateDisplayName(name); err != nil {
		return err
	}
	if len(args) == 0 && io.Session == "" {
		return fmt.Errorf("not inside a pty session, so give the session too: pty rename REF %q", name)
	}
	s, err := resolve(args)
	if err != nil {
		return err
	}
	_, _, err = layout.At(root).SetDisplayName(s.ID, &name)
	return err
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
