// Command pty-emit appends a user.* event to a session's event log.
package main

import (
	"encoding/json"
	"flag"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func main() {
	c := cli.NewCommand("emit", "pty emit [REF] user.NAME [--json JSON] [--text TEXT]")
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
	dataFlag := c.Flags.String("json", "", "attach `JSON` as the event's data")
	textFlag := c.Flags.String("text", "", "attach `TEXT` as the event's text")
	args := c.Parse(os.Args[1:])

	var data json.RawMessage
	var text *string
	var err error
	c.Flags.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "json":
			data, err = layout.CompactJSON("--json", []byte(*dataFlag))
		case "text":
			text = textFlag
		}
	})
	cli.Check(err)

	var ref, typ string
	switch len(args) {
	case 1:
		typ = args[0]
	case 2:
		ref, typ = args[0], args[1]
	case 0:
		cli.Fatalf("no event type given: pty emit [REF] user.NAME [--json JSON] [--text TEXT]")
	default:
		cli.Fatalf("too many arguments: pty emit [REF] user.NAME [--json JSON] [--text TEXT] (quote text with spaces)")
	}
	cli.Check(layout.ValidateUserEventType(typ))
	root := cli.WritableRoot()
	s := cli.ResolveOrCurrent(root, ref, "pty emit REF user.NAME")
	cli.Check(layout.At(root).EmitUser(s.ID, typ, data, text))
}
