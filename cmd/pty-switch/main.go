// Command pty-switch, run inside an attached session, moves the pty client
// showing it to another session (pkg/cmd/switch).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	switchcmd "github.com/ptyorg/pty/pkg/cmd/switch"
)

func main() {
	var o switchcmd.Options
	c := switchcmd.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(switchcmd.Run(o, c.System()))
}
