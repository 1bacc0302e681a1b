// Command pty-tag-multi shows or changes the tags of several sessions
// (pkg/cmd/tagmulti).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/tagmulti"
)

func main() {
	var o tagmulti.Options
	c := tagmulti.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(tagmulti.Run(o, c.System()))
}
