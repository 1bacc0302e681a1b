package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// IO is what a command's Run works against instead of the process's
// globals, so a test can run the command in-process with its own streams,
// registry and clock while main hands it the real ones (System).
type IO struct {
	// In is the user's keyboard: a file, because attaching puts a
	// terminal into raw mode and reads its size.
	In  *os.File
	Out io.Writer
	Err io.Writer
	// Root is the registry, already resolved from flags and environment.
	Root string
	// Env is the environment the command was started with ("K=V").
	Env []string
	// Now is the clock.
	Now func() time.Time
}

// System is the IO of a real run: the process's streams and environment,
// the wall clock, and root.
func System(root string) IO {
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Root: root, Env: os.Environ(), Now: time.Now}
}

// Getenv looks k up in io.Env; the last assignment wins, as for a process.
func (io IO) Getenv(k string) string {
	for i := len(io.Env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(io.Env[i], k+"="); ok {
			return v
		}
	}
	return ""
}

// OutFile is Out when it is a file (a terminal, whose size matters), else nil.
func (io IO) OutFile() *os.File {
	f, _ := io.Out.(*os.File)
	return f
}

// ExitError carries an exit status without a message: the command has
// already said what there was to say (a session's own exit code, a bulk
// change that reported its failures line by line).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Exit ends a main after its Run: with err's message and status 1 (as
// Fatalf), with an ExitError's status, or with 0.
func Exit(err error) {
	var ee *ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee):
		os.Exit(ee.Code)
	}
	Fatalf("%v", err)
}
