// Command pty-completions prints a shell completion script, and answers the
// script's questions (--complete) when TAB is pressed.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/completion"
)

func main() {
	// The scripts call "pty completions --complete -- WORDS..."; the words
	// are the user's half-typed command line, so they never go through
	// flag parsing.
	if len(os.Args) > 1 && os.Args[1] == "--complete" {
		words := os.Args[2:]
		if len(words) > 0 && words[0] == "--" {
			words = words[1:]
		}
		cs, d := completion.Complete(words, completion.System{})
		completion.Write(os.Stdout, cs, d)
		return
	}
	c := cli.NewCommand("completions", "pty completions bash|zsh|fish")
	c.Long = `Completes subcommands (including pty-* plugins on PATH), flags, and session
ids and display names wherever a session is expected.

Install:
  bash:  echo 'source <(pty completions bash)' >> ~/.bashrc
  zsh:   echo 'source <(pty completions zsh)' >> ~/.zshrc   (after compinit)
  fish:  pty completions fish > ~/.config/fish/completions/pty.fish`
	args := c.Parse(os.Args[1:])
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "pty: completions needs one shell: bash, zsh or fish (as in: pty completions bash)")
		os.Exit(2)
	}
	s, err := completion.Script(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "pty: %v\n", err)
		os.Exit(2)
	}
	fmt.Print(s)
}
