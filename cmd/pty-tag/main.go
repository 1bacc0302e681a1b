// Command pty-tag shows or changes one session's tags (pkg/cmd/tag).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/tag"
)

func main() {
	var o tag.Options
	c := tag.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(tag.Run(o, c.System()))
}
