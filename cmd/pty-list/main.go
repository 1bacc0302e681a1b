// Command pty-list is "pty list". It prints the registry itself for the
// plain command lines (no flags, --json, --tags: pkg/cmd/list/show) and
// execs pty-list-full, the whole command (pkg/cmd/list), for any other:
// filters, --summary, --help, mistakes. Prompts, status bars and watch
// loops list in loops, where the start of a program is most of the time;
// this one links no flag parsing, fmt or reflection-based JSON, so that
// it starts as fast as a Go program can (test/list's TestListLinksLittle).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli/lite"
	"github.com/ptyorg/pty/pkg/cmd/list/show"
	"github.com/ptyorg/pty/pkg/commands"
)

// full is the program that runs every other command line.
const full = "pty-list-full"

func main() {
	// Shell completion asks the full command for its flags.
	if o, ok := show.Args(os.Args[1:]); ok && os.Getenv(lite.DescribeEnv) != "1" {
		lite.Exit(show.Print(lite.SystemFrom(lite.Root), o))
	}
	err := commands.Exec(full)
	os.Stderr.WriteString("pty: cannot run " + full + " (" + err.Error() + "), which pty list needs for this command line; install pty again (install/install.sh) so that it is beside pty-list\n")
	os.Exit(1)
}
