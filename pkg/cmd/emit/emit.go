// Package emit is "pty emit": append a user.* event to a session's event
// log. cmd/pty-emit only parses the command line and calls Run.
package emit

import (
	"encoding/json"
	"errors"

	"github.com/ptyorg/pty/internal/jsonx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// Options are emit's flags and arguments.
type Options struct {
	JSON *string  // --json JSON, nil when not given
	Text *string  // --text TEXT, nil when not given
	Args []string // [REF] user.NAME
}

const form = "pty emit [REF] user.NAME [--json JSON] [--text TEXT]"

// Command declares emit's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("emit", form)
	c.Long = `Publishes an event that "pty events" followers see, for example to tell a
script waiting with "pty events REF --wait user.build-done" that a build
finished. Only user.* types can be emitted: the other types are written by
pty itself and readers must be able to trust them. NAME has no whitespace.

The event is {"session", "type", "ts", "data"?, "text"?}; data and text
together are at most 64 KiB. Inside a session ($PTY_SESSION set) REF may be
left out. Prints nothing on success.

Examples:
  pty emit user.build-done
  pty emit user.progress --json '{"pct": 40}'
  pty emit web user.deployed --text "v1.4.2"`
	c.Flags.Func("json", "attach `JSON` as the event's data", func(s string) error { o.JSON = &s; return nil })
	c.Flags.Func("text", "attach `TEXT` as the event's text", func(s string) error { o.Text = &s; return nil })
	return c
}

// Run appends the event o describes.
func Run(o Options, io cli.IO) error {
	var data json.RawMessage
	if o.JSON != nil {
		var err error
		if data, err = jsonx.Compact("--json", []byte(*o.JSON)); err != nil {
			return err
		}
	}
	var ref, typ string
	switch len(o.Args) {
	case 1:
		typ = o.Args[0]
	case 2:
		ref, typ = o.Args[0], o.Args[1]
	case 0:
		return errors.New("no event type given: " + form)
	default:
		return errors.New("too many arguments: " + form + " (quote text with spaces)")
	}
	if err := layout.ValidateUserEventType(typ); err != nil {
		return err
	}
	root := io.Root
	if err := rootdir.CheckWritable(root); err != nil {
		return err
	}
	s, err := cli.ResolveOrCurrent(root, ref, io.Session, "pty emit REF user.NAME")
	if err != nil {
		return err
	}
	return layout.At(root).EmitUser(s.ID, typ, data, o.Text)
}
