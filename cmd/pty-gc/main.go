// Command pty-gc is `pty gc`: one stateless reconciliation pass over the
// registry, and `pty gc install|uninstall|status` to run it on a timer
// (pkg/cmd/gc).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/gc"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "install", "uninstall", "status":
			o := gc.ServiceOptions{Sub: args[0]}
			c := gc.ServiceCommand(&o)
			o.Args = c.Parse(args[1:])
			cli.Exit(gc.Service(o, c.System()))
		}
	}
	var o gc.Options
	c := gc.Command(&o)
	o.Args = c.Parse(args)
	ctx, cancel := cli.Context()
	err := gc.Run(ctx, o, c.System())
	cancel()
	cli.Exit(err)
}
