// Command pty-kill stops a session and everything it started, and keeps
// its record so peek and restart still work (pkg/cmd/kill).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/kill"
)

func main() {
	var o kill.Options
	c := kill.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(kill.Run(o, c.System()))
}
