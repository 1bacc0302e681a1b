// Command pty-peek is "pty peek". It prints a session's screen itself
// (pkg/cmd/peek/screen) and execs pty-peek-full, the whole command
// (pkg/cmd/peek), for any other command line: following with -f, waiting
// with --wait, --help, mistakes. Printing a screen is what scripts and
// status bars run in loops, where the start of a program is most of the
// time; this one links only what printing needs, so that it starts as
// fast as a Go program can (test/peek's TestPeekLinksLittle).
package main

import (
	"os"
	"syscall"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/peek/screen"
	"github.com/ptyorg/pty/pkg/commands"
)

// full is the program that runs every other command line.
const full = "pty-peek-full"

func main() {
	if ref, flags, ok := screen.Args(os.Args[1:]); ok {
		c := cli.NewCommand("peek", "")
		cli.Exit(screen.Print(c.System(), ref, flags, 0))
	}
	path, err := commands.Program(full)
	if err == nil {
		err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), os.Environ())
	}
	os.Stderr.WriteString("pty: cannot run " + full + " (" + err.Error() + "), which pty peek needs for this command line; install pty again (install/install.sh) so that it is beside pty-peek\n")
	os.Exit(1)
}
