// Command pty-metadata patches a session's display name and tags from a
// JSON document, for programs that manage sessions by exact id
// (pkg/cmd/metadata).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/metadata"
)

func main() {
	var o metadata.Options
	c := metadata.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(metadata.Run(o, c.System()))
}
