// Command pty-remote runs a pty command on the sessions of another host
// over ssh (pkg/cmd/remote); the dispatcher runs it for --remote HOST.
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/remote"
)

func main() {
	var o remote.Options
	c := remote.Command(&o)
	remote.Parse(c, &o, os.Args[1:])
	cli.Exit(remote.Run(context.Background(), o, c.System()))
}
