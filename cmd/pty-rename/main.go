// Command pty-rename shows, sets or clears a session's display name
// (pkg/cmd/rename).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/rename"
)

func main() {
	var o rename.Options
	c := rename.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(rename.Run(o, c.System()))
}
