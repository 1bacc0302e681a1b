// Package lite is the part of package cli that a command's fast path
// links: the IO a Run works against, the registry root from the
// environment, and the one-line error convention. cmd/pty-peek and
// cmd/pty-list serve their common command lines with it alone, so that
// a start pays no set-up of flag parsing (flag, ff), signal handling or
// fmt; package cli declares the same things as aliases of these, so
// both paths print the same lines and find the same root.
package lite

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
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

// Root finds the registry that the environment (read with getenv) names
// (layout.ResolveRoot: PTY_ROOT, the deprecated PTY_SESSION_DIR,
// XDG_STATE_HOME, HOME), with any deprecation notice to print. It does
// not create the directory, but refuses one that exists and is not a
// directory.
func Root(getenv func(string) string) (dir string, warnings []string, err error) {
	r, err := layout.ResolveRoot(getenv)
	if err != nil {
		return "", nil, err
	}
	if err := rootdir.Check(r.Dir); err != nil {
		return "", nil, err
	}
	return r.Dir, r.Warnings, nil
}

// SystemFrom is the IO of a real run with the root that root finds from
// the process's environment (Root, or a command's own that honours
// --root). It prints the deprecation notices on stderr, and ends the
// process through Exit when there is no usable root.
func SystemFrom(root func(getenv func(string) string) (string, []string, error)) IO {
	dir, warnings, err := root(os.Getenv)
	if err != nil {
		Exit(err)
	}
	for _, w := range warnings {
		os.Stderr.WriteString(w + "\n")
	}
	return System(dir)
}

// DescribeEnv set to 1 asks a command to print its flags instead of
// running (package cli answers it): a fast path leaves such a run to the
// full command.
const DescribeEnv = "PTY_DESCRIBE_FLAGS"

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
	os.Stderr.WriteString(Message(err) + "\n")
	os.Exit(1)
}

// Message is the line a failed command prints for err: "pty: " and the
// message, or the message as it is for an error that is a sentence naming
// its own subject ("Session "web" not found."): one that says so with a
// method Sentence() bool (errs.Sentence, cli.Sentencef), and pkg/layout's
// reference and root errors. An error wrapping one of those has its own
// text first, so it is not a sentence unless it says so itself.
func Message(err error) string {
	msg := strings.TrimRight(err.Error(), "\n")
	if IsSentence(err) {
		return msg
	}
	return "pty: " + msg
}

// IsSentence reports whether err is printed without "pty: " (see
// Message), for a command that builds its message from err's.
func IsSentence(err error) bool {
	if s, ok := err.(interface{ Sentence() bool }); ok {
		return s.Sentence()
	}
	if _, ok := err.(*layout.RefError); ok {
		return true
	}
	// The root checks (internal/rootdir, layout.EnsureRoot
	// and the locks that call them) do not mark their errors; each begins
	// with the root it is about.
	return strings.HasPrefix(err.Error(), "pty root ")
}
