// Command pty-list prints the session registry; it only reads
// (pkg/cmd/list).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/list"
)

func main() {
	var o list.Options
	c := list.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(list.Run(o, c.System()))
}
