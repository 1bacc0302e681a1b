package cli

import (
	"errors"
	"io"
	"os"
	"strconv"
	"time"
)

// IO is what a command's Run works against: its streams, the registry
// root and the clock. A main fills it from the process (StdIO); tests
// fill it with buffers, a temporary root and a fixed clock, and call Run
// in-process.
type IO struct {
	In       *os.File // the keyboard, for commands that follow a session; may be nil
	Out, Err io.Writer
	Root     string
	Now      func() time.Time
	// Session is the id of the session this process runs inside
	// ($PTY_SESSION), the default of commands that take one; "" outside.
	Session string
}

// StdIO is the process's IO with root as the registry.
func StdIO(root string) IO {
	return IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, Root: root, Now: time.Now, Session: os.Getenv("PTY_SESSION")}
}

// OutFile is Out when it is a file (a terminal, for its size), else nil.
func (o IO) OutFile() *os.File {
	f, _ := o.Out.(*os.File)
	return f
}

// ExitCode is an error that only sets the exit status: whatever there was
// to say has been written already.
type ExitCode int

func (e ExitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// Exit ends a main with the outcome of its Run: status 0 for nil, the
// status of an ExitCode, else the error as one line (Fatalf).
func Exit(err error) {
	var code ExitCode
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &code):
		os.Exit(int(code))
	}
	Fatalf("%v", err)
}
