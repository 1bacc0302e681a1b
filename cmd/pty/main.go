// Command pty dispatches "pty <sub> ARGS" to the program pty-<sub>, found
// beside this executable first and then on $PATH (pkg/cmd/dispatch).
package main

import (
	"os"
	"syscall"

	"github.com/ptyorg/pty/pkg/cmd/dispatch"
)

func main() {
	os.Exit(dispatch.Run(dispatch.Options{Args: os.Args[1:], Env: os.Environ()},
		dispatch.IO{Out: os.Stdout, Err: os.Stderr, Exec: syscall.Exec}))
}
