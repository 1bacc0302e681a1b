// Command pty-rm removes a stopped session's files (pkg/cmd/rm).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/rm"
)

func main() {
	var o rm.Options
	c := rm.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(rm.Run(o, c.System()))
}
