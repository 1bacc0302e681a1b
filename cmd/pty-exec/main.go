// Command pty-exec makes another command the command of the session it
// runs in, and runs it (pkg/cmd/exec).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/exec"
)

func main() {
	var o exec.Options
	c := exec.Command(&o)
	exec.Parse(c, &o, os.Args[1:])
	cli.Exit(exec.Run(o, c.System()))
}
