// Command pty-up starts the sessions a pty.toml declares and brings the tags
// of those already running in line with the file (pkg/cmd/up).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/up"
)

func main() {
	var o up.Options
	c := up.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	ctx, cancel := cli.Context()
	err := up.Run(ctx, o, c.System())
	cancel()
	cli.Exit(err)
}
