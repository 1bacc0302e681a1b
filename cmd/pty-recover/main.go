// Command pty-recover brings back running sessions whose files, or whole
// root directory, were deleted (pkg/cmd/recover).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/recover"
)

func main() {
	var o recover.Options
	c := recover.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(recover.Run(o, c.System()))
}
