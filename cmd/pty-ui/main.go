// Command pty-ui is the interactive session picker, what `pty` opens when
// run with no arguments (also `pty i`, `pty ui`); pkg/cmd/ui.
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/ui"
)

func main() {
	// Ctrl+\ is the detach key: one pressed while the terminal is between
	// the picker and an attach must not kill the picker with SIGQUIT.
	client.IgnoreQuitKey()
	var o ui.Options
	c := ui.Command(&o)
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(ui.Run(o, c.System()))
}
