// Command pty-run-attach is the whole of "pty run": it starts a command in
// a new session and attaches to it, or leaves it in the background with
// -d (pkg/cmd/run, with the terminal side of pkg/cmd/run/attached).
// pty-run runs it for every command line that attaches (any without -d),
// and does -d itself (cmd/pty-run).
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/internal/tty"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/run"
	"github.com/ptyorg/pty/pkg/cmd/run/attached"
)

func main() {
	tty.IgnoreQuitKey()
	var o run.Options
	c := run.Command(&o)
	run.Parse(c, &o, os.Args[1:])
	o.Attacher = attached.Terminal
	cli.Exit(run.Run(context.Background(), o, c.System()))
}
