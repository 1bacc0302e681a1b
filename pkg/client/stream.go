package client

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/proto"
)

// The framed attach stream (pty attach --attach-stream-fd-v1 FD): the
// user's terminal stays the keyboard and gives the size, and what the
// session shows goes, instead of to the screen, to a descriptor the caller
// (a dashboard, a layout tool) reads and draws itself: the daemon's own
// frames, GEOMETRY, then one SCREEN, then DATA (and GEOMETRY, SCREEN again
// on a resync), ended by exactly one EXIT, or an empty DETACH when the user
// detached. docs/protocol.md, "The framed attach stream".

// StreamFDFlag names the flag in messages.
const StreamFDFlag = "--attach-stream-fd-v1"

// OpenStream checks that fd is a descriptor the caller gave this process
// for the stream (3 or more, open, writable) and returns it as a file.
// The descriptor stays the caller's: it is never closed here.
func OpenStream(fd int) (*os.File, error) {
	if fd < 3 {
		return nil, fmt.Errorf("%s needs a descriptor of its own, 3 or more, inherited open for writing (got %d): as in \"pty attach %s 3 REF 3>FILE\"", StreamFDFlag, fd, StreamFDFlag)
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return nil, fmt.Errorf("%s descriptor %d is not open (%v): open it for writing in the command that starts pty attach, as in \"3>FILE\"", StreamFDFlag, fd, err)
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		return nil, fmt.Errorf("%s descriptor %d is not writable (it is open for reading only): open it for writing, as in \"3>FILE\"", StreamFDFlag, fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%s descriptor %d: %v", StreamFDFlag, fd, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return nil, fmt.Errorf("%s descriptor %d is a directory, not writable", StreamFDFlag, fd)
	}
	return os.NewFile(uintptr(fd), fmt.Sprintf("descriptor %d", fd)), nil
}

// StreamOptions configures AttachStream.
type StreamOptions struct {
	In *os.File // the user's keyboard; raw mode is set if it is a terminal
	// OutFile is the user's terminal, read only for its size; nothing is
	// written to it.
	OutFile *os.File
	Stream  io.Writer // where the frames go (OpenStream)
	FD      int       // the stream's descriptor number, for messages
	// DetachKey is the key that detaches (the zero Key is Ctrl+\).
	DetachKey detachkey.Key
}

// StreamError is an attach stream that could not go on: a daemon that
// does not give the geometry-first order, the stream's descriptor failing,
// or the connection ending without EXIT. The stream has no final frame.
type StreamError struct{ Msg string }

func (e *StreamError) Error() string { return e.Msg }

// streamOrder checks the order of the frames forwarded to the stream: a
// GEOMETRY first, then a SCREEN before any DATA or EXIT.
type streamOrder int

const (
	wantGeometry streamOrder = iota
	wantScreen
	streaming
)

func (s *streamOrder) next(t proto.Type) error {
	switch {
	case *s == wantGeometry && t != proto.Geometry:
		return &StreamError{fmt.Sprintf("the daemon does not support the attach stream v1: it sent %v before GEOMETRY; attach without %s", t, StreamFDFlag)}
	case *s == wantScreen && t != proto.Geometry && t != proto.Screen:
		return &StreamError{fmt.Sprintf("the daemon does not support the attach stream v1: it sent %v before SCREEN; attach without %s", t, StreamFDFlag)}
	case *s == wantGeometry:
		*s = wantScreen
	case *s == wantScreen && t == proto.Screen:
		*s = streaming
	}
	return nil
}

// AttachStream attaches as a writable client on c and writes the session's
// frames to o.Stream until the session exits (Result.Exited, its EXIT the
// last frame), the user presses the detach key (Result.Detached, an empty
// DETACH the last frame) or a signal ends it (Result.Signal, DETACH too).
// It writes nothing to the terminal. Any other end is an error, a
// *StreamError when the stream itself is at fault.
func AttachStream(c *Conn, o StreamOptions) (Result, error) {
	in := o.In
	isTTY := in != nil && term.IsTerminal(int(in.Fd()))
	rows, cols := TermSize(o.OutFile, in)
	if isTTY {
		st, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return Result{}, fmt.Errorf("raw mode: %w", err)
		}
		defer term.Restore(int(in.Fd()), st)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(stop)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	// The keyboard as a non-blocking descriptor, so that closing it on
	// return ends the goroutine reading it.
	var keysIn io.Reader = in
	if isTTY {
		if f, rc := reopenNonblock(in, os.O_RDONLY); f != nil {
			defer f.Close()
			keysIn = rawio.Conn{RC: rc}
		}
	}
	if err := c.WriteFrame(proto.Attach, proto.Size(rows, cols)); err != nil {
		return Result{}, fmt.Errorf("attach: %w", err)
	}

	// out serialises the stream: the reader's frames and the final
	// DETACH, after which nothing more is written.
	var out struct {
		sync.Mutex
		done bool
	}
	// final writes the last frame; nothing is written after it.
	final := func(t proto.Type, p []byte) error {
		out.Lock()
		defer out.Unlock()
		out.done = true
		return proto.WriteFrame(o.Stream, t, p)
	}
	streamFailed := func(err error) error {
		return &StreamError{fmt.Sprintf("the stream's descriptor %d failed: %v", o.FD, err)}
	}

	ended := make(chan frameOrErr, 1)
	go func() {
		var order streamOrder
		for {
			f, err := c.Next()
			if err != nil {
				ended <- frameOrErr{err: err}
				return
			}
			switch f.Type {
			case proto.Geometry, proto.Screen, proto.Data:
			case proto.Exit:
				if err := order.next(f.Type); err != nil {
					ended <- frameOrErr{err: err}
					return
				}
				ended <- frameOrErr{f: f}
				return
			default:
				continue // STATUS replies, frames of newer daemons
			}
			if err := order.next(f.Type); err != nil {
				ended <- frameOrErr{err: err}
				return
			}
			out.Lock()
			var werr error
			if !out.done {
				werr = proto.WriteFrame(o.Stream, f.Type, f.Payload)
			}
			out.Unlock()
			if werr != nil {
				ended <- frameOrErr{err: streamFailed(werr)}
				return
			}
		}
	}()

	var keysFrom io.Reader
	if in != nil {
		keysFrom = keysIn
	}
	detach, sendErr, _ := c.keyboard(keysFrom, o.DetachKey, false)

	detachWith := func(res Result) (Result, error) {
		c.Detach()
		if err := final(proto.Detach, nil); err != nil {
			return Result{}, streamFailed(err)
		}
		return res, nil
	}
	for {
		select {
		case fe := <-ended:
			var se *StreamError
			var refused *RefusedError
			switch {
			case errors.As(fe.err, &se), errors.As(fe.err, &refused):
				return Result{}, fe.err
			case errors.Is(fe.err, io.EOF), errors.Is(fe.err, io.ErrUnexpectedEOF):
				return Result{}, &StreamError{"the stream was cut before EXIT: the daemon closed the connection; the session's state is unknown (see \"pty list\")"}
			case fe.err != nil:
				return Result{}, &StreamError{fmt.Sprintf("the stream was cut before EXIT: %v", fe.err)}
			}
			if err := final(proto.Exit, fe.f.Payload); err != nil {
				return Result{}, streamFailed(err)
			}
			return Result{Exited: true, Code: proto.ParseExitCode(fe.f.Payload)}, nil
		case err := <-sendErr:
			return Result{}, &StreamError{fmt.Sprintf("the stream was cut before EXIT: typing into the session failed: %v", err)}
		case <-detach:
			return detachWith(Result{Detached: true})
		case sig := <-stop:
			return detachWith(Result{Signal: sig.(syscall.Signal)})
		case <-winch:
			r, cl := TermSize(o.OutFile, in)
			if r != rows || cl != cols {
				rows, cols = r, cl
				c.WriteFrame(proto.Resize, proto.Size(rows, cols))
			}
		}
	}
}

// keyboard sends what is typed on keys (nil: nothing is) to the session
// as DATA, through the detach key's filter, until keys ends; detach is
// signalled when the user detached, sendErr when sending failed. The gate
// it returns stops the sending at a switch (keyGate.hold): what is typed
// from then on is kept for the next session.
func (c *Conn) keyboard(keys io.Reader, key detachkey.Key, readOnly bool) (detach <-chan struct{}, sendErr <-chan error, gate *keyGate) {
	det := make(chan struct{}, 1)
	errc := make(chan error, 1)
	gate = &keyGate{c: c, done: make(chan struct{})}
	if keys == nil {
		close(gate.done)
		return det, errc, gate
	}
	go func() {
		defer close(gate.done)
		k := detachkey.Filter{Key: key, ReadOnly: readOnly,
			Send: gate.send,
			Detach: func() {
				select {
				case det <- struct{}{}:
				default:
				}
			}}
		b := make([]byte, 4096)
		for {
			n, err := keys.Read(b)
			if n > 0 {
				if werr := k.Feed(b[:n]); werr != nil {
					errc <- werr
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return det, errc, gate
}

// maxCarry bounds the keys kept across a switch: what is typed between
// the old session's SWITCH_TO and the keyboard's hand-over, a moment.
const maxCarry = 64 << 10

// keyGate is where the keyboard's input goes: to the session as DATA
// until hold, then into carry. A relaying client holds it as soon as it
// reads SWITCH_TO: every key it sent before was typed before it knew of
// the switch, and reaches the old session (the daemon writes the DATA
// that comes before the client's DETACH); every key read after goes to
// the next session, first thing (Attach sends it ahead of its ATTACH).
type keyGate struct {
	c    *Conn
	done chan struct{} // the keyboard's goroutine has ended

	mu    sync.Mutex
	held  bool
	carry []byte
}

func (g *keyGate) send(b []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held {
		if len(g.carry)+len(b) <= maxCarry {
			g.carry = append(g.carry, b...)
		}
		return nil
	}
	return g.c.WriteFrame(proto.Data, b)
}

// hold sends no more keys to this connection: once it returns, none is
// being written.
func (g *keyGate) hold() {
	g.mu.Lock()
	g.held = true
	g.mu.Unlock()
}

// kept is what was typed since hold, once the keyboard (closed by the
// caller) has stopped reading, or after wait if it has not.
func (g *keyGate) kept(wait time.Duration) []byte {
	select {
	case <-g.done:
	case <-time.After(wait):
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.carry
	g.carry = nil
	return b
}
