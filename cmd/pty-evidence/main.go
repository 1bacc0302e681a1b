// Command pty-evidence reads and removes the exit evidence of one exact
// session generation (pkg/cmd/evidence).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/evidence"
)

func main() {
	var o evidence.Options
	c := evidence.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(evidence.Run(o, c.System()))
}
