// Command pty-state reads and changes the JSON state bag kept in a
// session's metadata (pkg/cmd/state).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/state"
)

func main() {
	var o state.Options
	c := state.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(state.Run(o, c.System()))
}
