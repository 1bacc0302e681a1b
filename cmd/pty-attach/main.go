// Command pty-attach connects this terminal to a session; Ctrl+\ (or the
// --detach-key) detaches (pkg/cmd/attach).
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/attach"
)

func main() {
	client.IgnoreQuitKey()
	var o attach.Options
	c := attach.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(attach.Run(context.Background(), o, c.System()))
}
