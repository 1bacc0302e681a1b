// Command pty-down stops the sessions a pty.toml started (pkg/cmd/down).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/down"
)

func main() {
	var o down.Options
	c := down.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(down.Run(o, c.System()))
}
