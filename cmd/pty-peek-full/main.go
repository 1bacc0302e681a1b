// Command pty-peek-full is the whole of "pty peek": it prints a session's
// screen, follows it read-only, or waits until some text appears on it
// (pkg/cmd/peek). pty-peek runs it for every command line but the
// printing of one screen, which it does itself (cmd/pty-peek).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/peek"
)

func main() {
	var o peek.Options
	c := peek.Command(&o)
	peek.Parse(c, &o, os.Args[1:])
	cli.Exit(peek.Run(o, c.System()))
}
