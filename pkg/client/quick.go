package client

import (
	"io"
	"time"

	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/layout"
)

// The one-shot peek of a running session, and what goes with it, live in
// package quick, which pty-peek links without the rest of this package.

// QuickPeek is Peek for the hot path of "pty peek ID" (see quick.Peek).
func QuickPeek(root, id string, flags byte, timeout time.Duration) ([]byte, error) {
	return quick.Peek(root, id, flags, timeout)
}

// EndedError is QuickPeek's answer from a daemon whose session has ended
// and which lingers to tell its clients (see quick.EndedError).
type EndedError = quick.EndedError

// PrintScreen writes a peeked screen the way pty peek prints it (see
// quick.PrintScreen).
func PrintScreen(w io.Writer, b []byte, plain bool) error { return quick.PrintScreen(w, b, plain) }

// TextOnly is s without escape sequences and control characters other
// than newline and tab, keeping SGR sequences and OSC 8 hyperlinks when
// sgr is set (see quick.TextOnly).
func TextOnly(s string, sgr bool) string { return quick.TextOnly(s, sgr) }

// PeekText is the text of a PEEK baseline in its SGR form as it is
// printed or split into lines (see quick.PeekText).
func PeekText(s string) string { return quick.PeekText(s) }

// Settle re-reads a session that looked running but whose daemon did not
// serve us (see quick.Settle).
func Settle(root string, s layout.Session) layout.Session { return quick.Settle(root, s) }

// Unreachable describes, in one line with what to do about it, a running
// session whose daemon refused or dropped our connection (see
// quick.Unreachable).
func Unreachable(root string, s layout.Session, err error) error {
	return quick.Unreachable(root, s, err)
}
