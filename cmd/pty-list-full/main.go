// Command pty-list-full is the whole of "pty list": every flag, --help,
// and the one line for a mistake (pkg/cmd/list). pty-list runs it for
// every command line but the plain ones, which it prints itself
// (cmd/pty-list).
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
