package quick

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// ErrNotRunning means the session's socket does not answer.
var ErrNotRunning = errors.New("session is not running")

// RefusedError is a daemon's refusal of the connection (a REFUSED frame:
// too many connections, say), with its reason.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "the session refused the connection: " + e.Reason }

// IsRefusal reports whether a frame of type t refuses the connection:
// our REFUSED, or the Rust port's ATTACH_REFUSED.
func IsRefusal(t proto.Type) bool { return t == proto.Refused || t == proto.AttachRefused }

// RefusalOf is the *RefusedError of a refusal's payload, a reason from a
// daemon that may not be ours: what cannot be shown on a terminal (escape
// sequences, invalid UTF-8) is replaced, and it is cut to 500 characters.
func RefusalOf(payload []byte) *RefusedError {
	var b strings.Builder
	n := 0
	for _, r := range strings.ToValidUTF8(string(payload), "\uFFFD") {
		if n == 500 {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	reason := strings.TrimSpace(b.String())
	if reason == "" {
		reason = "no reason given"
	}
	return &RefusedError{Reason: reason}
}

// Settle re-reads a session that looked running but whose daemon did not
// serve us: a session that has just ended closes its socket a moment
// before its pid file goes, and is then reported as ended rather than as
// unreachable. It gives up after a second and returns the last reading.
func Settle(root string, s layout.Session) layout.Session {
	deadline := time.Now().Add(time.Second)
	for {
		n, err := layout.At(root).Load(s.ID)
		if err != nil {
			return s
		}
		s = n
		if s.Shown() != layout.Running || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Unreachable describes, in one line with what to do about it, a running
// session whose daemon refused or dropped our connection: a socket left
// behind by a daemon that lost it, a daemon of another user (which drops
// connections from other uids), or one too busy to answer.
func Unreachable(root string, s layout.Session, err error) error {
	who := ""
	if s.Pid > 0 {
		who = " (daemon pid " + strconv.Itoa(s.Pid) + ")"
	}
	// Put together without fmt, which pty-peek does not link.
	return errors.New("session " + strconv.Quote(s.ID) + " is running" + who + " but its socket " + layout.At(root).Paths(s.ID).Sock() + " " + reason(err) +
		"; if another user started it, run pty as that user, otherwise stop it with: pty kill " + s.ID)
}

func reason(err error) string {
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return "refused the connection: " + refused.Reason
	case errors.Is(err, layout.ErrSymlink):
		return "is a symbolic link (pty connects to no socket through a link; remove it)"
	case errors.Is(err, layout.ErrNotSocket):
		return "is not a socket of the registry's owner (remove it)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refuses connections (nothing listens on it)"
	case errors.Is(err, syscall.ENOENT):
		return "is missing"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "is not ours to open (permission denied)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "closed the connection without answering"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "did not answer in time"
	}
	return "did not answer: " + err.Error()
}
