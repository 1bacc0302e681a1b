// Command pty-events follows or prints sessions' event logs
// (pkg/cmd/events).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/events"
)

func main() {
	var o events.Options
	c := events.Command(&o)
	events.Parse(c, &o, os.Args[1:])
	ctx, cancel := cli.Context()
	err := events.Run(ctx, o, c.System())
	cancel()
	cli.Exit(err)
}
