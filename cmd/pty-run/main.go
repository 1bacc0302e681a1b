// Command pty-run is "pty run". It starts a detached session (-d) itself
// and execs pty-run-attach, the whole command (cmd/pty-run-attach), for
// every command line that attaches. Starting a session in the background
// is what scripts and agents run, many at a time, where the start of a
// program is much of the time; this one links none of the attach client
// and its terminal emulator, whose set-up every start would pay
// (test/run's TestRunLinksLittle).
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/internal/tty"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/run"
	"github.com/ptyorg/pty/pkg/commands"
)

// full is the program that runs the command lines that attach.
const full = "pty-run-attach"

func main() {
	tty.IgnoreQuitKeyStartingPty()
	var o run.Options
	c := run.Command(&o)
	// --help and mistakes in the flags are answered here, as
	// pty-run-attach would answer them: the same declarations.
	run.Parse(c, &o, os.Args[1:])
	if o.Detach {
		cli.Exit(run.Run(context.Background(), o, c.System()))
	}
	err := commands.Exec(full)
	os.Stderr.WriteString("pty: cannot run " + full + " (" + err.Error() + "), which pty run needs to attach; install pty again (install/install.sh) so that it is beside pty-run, or start the session in the background with -d\n")
	os.Exit(1)
}
