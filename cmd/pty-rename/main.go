// Command pty-rename shows, sets or clears a session's display name.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func main() {
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
	show := c.Flags.Bool("show", false, "print the display name (nothing when there is none)")
	clear := c.Flags.Bool("clear", false, "remove the display name")
	args := c.Parse(os.Args[1:])
	if *show && *clear {
		cli.Fatalf("--show and --clear cannot be combined")
	}
	root := cli.Root()
	if !*show {
		cli.Check(layout.CheckWritableRoot(root))
	}

	if *show || *clear {
		if len(args) > 1 {
			cli.Fatalf("too many arguments: pty rename --%s [REF]", map[bool]string{true: "show", false: "clear"}[*show])
		}
		s := cli.ResolveOrCurrent(root, firstArg(args), "give a session id or name")
		cli.Check(s.DamagedErr())
		if *show {
			if s.Meta.DisplayName != nil {
				fmt.Println(*s.Meta.DisplayName)
			}
			return
		}
		_, _, err := layout.At(root).SetDisplayName(s.ID, nil)
		cli.Check(err)
		return
	}

	var name string
	switch len(args) {
	case 0:
		cli.Fatalf("no name given: pty rename NEW (inside a session) or pty rename REF NEW")
	case 1:
		name, args = args[0], nil
	case 2:
		name, args = args[1], args[:1]
	default:
		cli.Fatalf("too many arguments: quote a name with spaces, as in: pty rename REF \"API server\"")
	}
	// Check the name before resolving, so a bad name is reported as such
	// even when the session is also wrong.
	cli.Check(layout.ValidateDisplayName(name))
	if len(args) == 0 && os.Getenv("PTY_SESSION") == "" {
		cli.Fatalf("not inside a pty session, so give the session too: pty rename REF %q", name)
	}
	s := cli.ResolveOrCurrent(root, firstArg(args), "give a session id or name")
	cli.Check(s.DamagedErr())
	_, _, err := layout.At(root).SetDisplayName(s.ID, &name)
	cli.Check(err)
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
