// Package completions is "pty completions": print a shell completion
// script, and answer the script's questions (--complete) when TAB is
// pressed. cmd/pty-completions only parses the command line and calls Run.
package completions

import (
	"fmt"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/completion"
)

// Options are completions' arguments.
type Options struct {
	// Complete: Args are the user's half-typed command line, to answer.
	Complete bool
	Args     []string // SHELL, or the words to complete
	// Source gives the sessions, commands and flags to offer; nil is the
	// real registry and PATH (completion.System).
	Source completion.Source
}

// Command declares completions' flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("completions", "pty completions bash|zsh|fish")
	c.Long = `Completes subcommands (including pty-* plugins on PATH), flags, and session
ids and display names wherever a session is expected.

Install:
  bash:  echo 'source <(pty completions bash)' >> ~/.bashrc
  zsh:   echo 'source <(pty completions zsh)' >> ~/.zshrc   (after compinit)
  fish:  pty completions fish > ~/.config/fish/completions/pty.fish`
	return c
}

// Parse fills o from the command line (without the program name). The
// scripts call "pty completions --complete -- WORDS..."; the words are the
// user's half-typed command line, so they never go through flag parsing.
func Parse(c *cli.Command, o *Options, args []string) {
	if len(args) > 0 && args[0] == "--complete" {
		words := args[1:]
		if len(words) > 0 && words[0] == "--" {
			words = words[1:]
		}
		o.Complete, o.Args = true, words
		return
	}
	o.Args = c.Parse(args)
}

// Run prints the script for the shell o.Args names, or the candidates for
// the words it holds. A wrong shell is a usage error: exit status 2.
func Run(o Options, io cli.IO) error {
	if o.Complete {
		src := o.Source
		if src == nil {
			src = completion.System{}
		}
		cs, d := completion.Complete(o.Args, src)
		return completion.Write(io.Out, cs, d)
	}
	if len(o.Args) != 1 {
		fmt.Fprintln(io.Err, "pty: completions needs one shell: bash, zsh or fish (as in: pty completions bash)")
		return cli.ExitCode(2)
	}
	s, err := completion.Script(o.Args[0])
	if err != nil {
		fmt.Fprintf(io.Err, "pty: %v\n", err)
		return cli.ExitCode(2)
	}
	_, err = fmt.Fprint(io.Out, s)
	return err
}
