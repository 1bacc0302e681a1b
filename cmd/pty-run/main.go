// Command pty-run starts a command in a new session and attaches to it
// (or, with -d, leaves it running in the background); pkg/cmd/run.
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/run"
)

func main() {
	client.IgnoreQuitKey()
	var o run.Options
	c := run.Command(&o)
	run.Parse(c, &o, os.Args[1:])
	cli.Exit(run.Run(context.Background(), o, c.System()))
}
