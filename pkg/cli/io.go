package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// IO is what a command's Run works against instead of the process's
// globals: its streams, the registry root, the environment and the clock.
// A main fills it from the process (System); tests fill it with buffers,
// a temporary root and a fixed clock, and call Run in-process.
type IO struct {
	// In is the user's keyboard: a file, because attaching puts a
	// terminal into raw mode and reads its size. May be nil for commands
	// that never read it.
	In       *os.File
	Out, Err io.Writer
	// Root is the registry, already resolved from flags and environment.
	Root string
	// Env is the environment the command was started with ("K=V").
	Env []string
	Now func() time.Time
	// Session is the id of the session this process runs inside
	// ($PTY_SESSION), the default of commands that take one; "" outside.
	Session string
}

// System is the IO of a real run: the process's streams and environment,
// the wall clock, and root.
func System(root string) IO {
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Root: root, Env: os.Environ(), Now: time.Now, Session: os.Getenv("PTY_SESSION")}
}

// Getenv looks k up in io.Env; the last assignment wins, as for a process.
func (io IO) Getenv(k string) string {
	v, _ := io.LookupEnv(k)
	return v
}

// LookupEnv is Getenv that also says whether k is set at all (NO_COLOR
// counts when set to "").
func (io IO) LookupEnv(k string) (string, bool) {
	for i := len(io.Env) - 1; i >= 0; i-- {
		// Compared in place: k+"=" would be a string built per entry.
		if e := io.Env[i]; len(e) > len(k) && e[len(k)] == '=' && e[:len(k)] == k {
			return e[len(k)+1:], true
		}
	}
	return "", false
}

// OutFile is Out when it is a file (a terminal, whose size matters), else nil.
func (io IO) OutFile() *os.File {
	f, _ := io.Out.(*os.File)
	return f
}

// ExitCode is an error that only sets the exit status: the command has
// already said what there was to say (a session's own exit code, a bulk
// change that reported its failures line by line).
type ExitCode int

func (e ExitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// Exit ends a main with the outcome of its Run: status 0 for nil, the
// status of an ExitCode, else status 1 after the error's one line on
// stderr (Message).
func Exit(err error) {
	var code ExitCode
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &code):
		os.Exit(int(code))
	}
	fmt.Fprintln(os.Stderr, Message(err))
	os.Exit(1)
}
