// Command pty-send types text and keys into a session, as if from its
// keyboard (pkg/cmd/send).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/send"
)

func main() {
	var o send.Options
	c := send.Command(&o)
	send.Parse(c, &o, os.Args[1:])
	cli.Exit(send.Run(o, c.System()))
}
