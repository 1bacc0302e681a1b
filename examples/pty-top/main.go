// Command pty-top is an example pty plugin: a live table of the sessions
// in a registry with their status, CPU and memory. Installed on $PATH (or
// beside pty) it runs as "pty top", because the pty dispatcher runs
// pty-<sub> for any <sub> it does not know, the way git runs git-<sub>.
//
// It is written as a third party would write it: it imports pty's public
// API (github.com/ptyorg/pty/pkg/layout) and nothing else of pty's, and
// deps_test.go fails if that changes. docs/plugins.md walks through it.
//
// main only parses the command line and calls Run; Run does the work
// against injected streams, so it is tested in-process as well as through
// the dispatcher.
package main

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/layout"
)

func main() {
	o, err := Parse(os.Args[1:], os.Stdout)
	if errors.Is(err, errHelp) {
		return
	}
	if err != nil {
		fail(err)
	}
	root := o.Root
	if root == "" {
		// The root pty's commands use: $PTY_ROOT (which "pty --root DIR
		// top" sets), else the default. ResolveRoot rather than
		// OpenDefault, to pass on its warnings about deprecated
		// variables as pty's commands do.
		env, err := layout.ResolveRoot(os.Getenv)
		if err != nil {
			fail(err)
		}
		for _, w := range env.Warnings {
			os.Stderr.WriteString(w + "\n")
		}
		root = env.Dir
	} else if root, err = filepath.Abs(root); err != nil {
		fail(err)
	}
	reg, err := layout.Open(root)
	if err != nil {
		fail(err)
	}
	// Ctrl+C, a closed terminal or a kill end the live view cleanly (the
	// terminal's screen and cursor are restored).
	done := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() { <-sig; close(done) }()

	tty := term.IsTerminal(int(os.Stdout.Fd()))
	width := func() int {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			return w
		}
		return 0
	}
	if err := Run(o, IO{Out: os.Stdout, Err: os.Stderr, Registry: reg, Done: done, Terminal: tty, Width: width}); err != nil {
		fail(err)
	}
}

// fail prints err as pty's commands print theirs, one line saying what is
// wrong and what to do, and exits 1.
func fail(err error) {
	os.Stderr.WriteString("pty top: " + err.Error() + "\n")
	os.Exit(1)
}
