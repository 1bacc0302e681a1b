// Command pty-web serves the sessions of the registry to a browser: the
// list, and each session's screen, live (pkg/cmd/web).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/web"
)

func main() {
	var o web.Options
	c := web.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	ctx, cancel := cli.Context()
	err := web.Run(ctx, o, c.System())
	cancel()
	cli.Exit(err)
}
