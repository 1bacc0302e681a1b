// Command pty-remote-serve serves this host's sessions to a pty on another
// machine over a transport such as ssh (pkg/cmd/remoteserve).
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/remoteserve"
)

func main() {
	var o remoteserve.Options
	c := remoteserve.Command(&o)
	if args := c.Parse(os.Args[1:]); len(args) > 0 {
		cli.Exit(fmt.Errorf("remote-serve takes no arguments, got %q (see 'pty remote-serve --help')", args[0]))
	}
	cli.Exit(remoteserve.Run(o, c.System()))
}
