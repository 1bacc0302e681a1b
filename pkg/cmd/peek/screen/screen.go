// Package screen is the part of "pty peek" that prints a session's screen
// once (without -f or --wait): what scripts and status bars run in loops.
// cmd/pty-peek runs it in-process and hands every other command line to
// pty-peek-full (package peek), so that printing a screen links neither
// the network poller nor the terminal emulator, whose set-up every start
// of a program would pay. Package peek calls the same code.
package screen

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli/lite"
	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// DefaultAnswer is how long a peek waits for a daemon to answer.
const DefaultAnswer = 10 * time.Second

// Args reads the command lines this package serves alone: one session
// reference and at most --plain and --full (or -plain, -full), in any
// order. Anything else (other flags, --help, "--", a reference that looks
// like a flag, a mistake) is for the full command line parser, and ok is
// false.
func Args(args []string) (ref string, flags byte, ok bool) {
	for _, a := range args {
		switch a {
		case "--plain", "-plain":
			flags |= proto.PeekPlain
		case "--full", "-full":
			flags |= proto.PeekFull
		default:
			if ref != "" || a == "" || a[0] == '-' {
				return "", 0, false
			}
			ref = a
		}
	}
	return ref, flags, ref != ""
}

// Print prints the screen of a running session, or what an ended one
// left. The common case, an exact id of a running session, is one
// connection straight to its socket with kernel timeouts and no registry
// read; a daemon that accepts and does not answer is reported after one
// wait (answer; 0 is DefaultAnswer), never asked twice.
func Print(io lite.IO, ref string, flags byte, answer time.Duration) error {
	if answer <= 0 {
		answer = DefaultAnswer
	}
	plain := flags&proto.PeekPlain != 0
	tried := ""
	var lastErr error
	if layout.ValidateID(ref) == nil {
		b, err := quick.Peek(io.Root, ref, flags, answer)
		if err == nil {
			return quick.PrintScreen(io.Out, b, plain)
		}
		if !errors.Is(err, quick.ErrNotRunning) {
			return notAnswering(io, ref, err)
		}
		tried, lastErr = ref, err
	}
	s, err := layout.At(io.Root).Resolve(ref)
	if err != nil {
		return err
	}
	if s.Shown() != layout.Running {
		return PrintDead(io, s)
	}
	var ended *quick.EndedError
	if s.ID == tried && errors.As(lastErr, &ended) {
		// Its daemon has the exit the record lacks (it could not write
		// it yet): its word is the truth.
		if err := quick.PrintScreen(io.Out, ended.Screen, plain); err != nil {
			return err
		}
		if ended.Code < 0 {
			return lite.ExitCode(1)
		}
		return exitCode(ended.Code)
	}
	if s.ID != tried {
		b, err := quick.Peek(io.Root, s.ID, flags, answer)
		if err == nil {
			return quick.PrintScreen(io.Out, b, plain)
		}
		if !errors.Is(err, quick.ErrNotRunning) {
			return notAnswering(io, s.ID, err)
		}
		lastErr = err
	}
	s, err = Unserved(io.Root, s, lastErr)
	if err != nil {
		return err
	}
	return PrintDead(io, s)
}

func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return lite.ExitCode(code)
}

// notAnswering is the one line for a running session whose daemon took
// the connection and then did not answer (or hung up). A daemon that died
// meanwhile (the connection was queued on a socket its dying process
// still held) is not one: the session has ended, and what it left is
// printed.
func notAnswering(io lite.IO, id string, err error) error {
	s, lerr := layout.At(io.Root).Load(id)
	if lerr != nil {
		s = layout.Session{ID: id}
	} else if s.Shown() != layout.Running {
		return PrintDead(io, s)
	}
	return quick.Unreachable(io.Root, s, err)
}

// Unserved is the session whose daemon did not serve us (err), once it
// has ended; if it is still running, its daemon refuses us, which is an
// error, not an ended session to print.
func Unserved(root string, s layout.Session, err error) (layout.Session, error) {
	s = quick.Settle(root, s)
	if s.Shown() == layout.Running {
		return s, quick.Unreachable(root, s, err)
	}
	return s, nil
}

// PrintDead prints what an ended session left behind.
func PrintDead(w lite.IO, s layout.Session) error {
	if err := s.DamagedErr(); err != nil {
		return err // nothing it left can be read
	}
	if len(s.Meta.LastLines) == 0 {
		io.WriteString(w.Out, "Session "+strconv.Quote(s.ID)+" has "+string(s.Shown())+" with no saved output\n")
		return nil
	}
	io.WriteString(w.Out, strings.Join(s.Meta.LastLines, "\n")+"\n")
	return nil
}
