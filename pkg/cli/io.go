package cli

import (
	"github.com/ptyorg/pty/pkg/cli/lite"
)

// IO is what a command's Run works against instead of the process's
// globals (package lite, which fast paths link without the rest of cli).
type IO = lite.IO

// System is the IO of a real run: the process's streams and environment,
// the wall clock, and root.
func System(root string) IO { return lite.System(root) }

// ExitCode is an error that only sets the exit status: the command has
// already said what there was to say (a session's own exit code, a bulk
// change that reported its failures line by line).
type ExitCode = lite.ExitCode

// Exit ends a main with the outcome of its Run: status 0 for nil, the
// status of an ExitCode, else status 1 after the error's one line on
// stderr (Message).
func Exit(err error) { lite.Exit(err) }

// Message is the line a failed command prints for err (lite.Message).
func Message(err error) string { return lite.Message(err) }

// IsSentence reports whether err is printed without "pty: " (see
// Message), for a command that builds its message from err's.
func IsSentence(err error) bool { return lite.IsSentence(err) }
