// Command pty-emit appends a user.* event to a session's event log
// (pkg/cmd/emit).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/emit"
)

func main() {
	var o emit.Options
	c := emit.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(emit.Run(o, c.System()))
}
