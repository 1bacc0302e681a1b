// Command pty-completions prints a shell completion script, and answers the
// script's questions (--complete) when TAB is pressed
// (pkg/cmd/completions).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/completions"
)

func main() {
	var o completions.Options
	c := completions.Command(&o)
	completions.Parse(c, &o, os.Args[1:])
	// Completion reads no registry of its own choosing (the words it
	// completes may name one), so it resolves no root here.
	cli.Exit(completions.Run(o, cli.System("")))
}
