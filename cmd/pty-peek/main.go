// Command pty-peek is "pty peek". It prints a session's screen itself
// (pkg/cmd/peek/screen) and execs pty-peek-full, the whole command
// (pkg/cmd/peek), for any other command line: following with -f, waiting
// with --wait, --help, mistakes. Printing a screen is what scripts and
// status bars run in loops, where the start of a program is most of the
// time; this one links only what printing needs (not even pkg/cli's flag
// parsing: pkg/cli/lite), so that it starts as fast as a Go program can
// (test/peek's TestPeekLinksLittle).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli/lite"
	"github.com/ptyorg/pty/pkg/cmd/peek/screen"
	"github.com/ptyorg/pty/pkg/commands"
)

// full is the program that runs every other command line.
const full = "pty-peek-full"

func main() {
	if ref, flags, ok := screen.Args(os.Args[1:]); ok {
		lite.Exit(screen.Print(lite.SystemFrom(lite.Root), ref, flags, 0))
	}
	err := commands.Exec(full)
	os.Stderr.WriteString("pty: cannot run " + full + " (" + err.Error() + "), which pty peek needs for this command line; install pty again (install/install.sh) so that it is beside pty-peek\n")
	os.Exit(1)
}
