// Command pty-restart starts a session again from its stored settings
// (pkg/cmd/restart).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/restart"
)

func main() {
	var o restart.Options
	c := restart.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	ctx, cancel := cli.Context()
	err := restart.Run(ctx, o, c.System())
	cancel()
	cli.Exit(err)
}
