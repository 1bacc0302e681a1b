// Package client talks to a session's daemon over its socket: one-shot
// requests (send, peek, status) and the interactive attach loop.
package client

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// Conn is one connection to a session's daemon.
type Conn struct {
	c   *net.UnixConn
	w   io.Writer // c, or c through rawio after direct
	r   *proto.Reader
	wmu sync.Mutex
	// relayed: another process carries the connection to the daemon (a
	// route over ssh), so descriptors cannot be handed over it.
	relayed bool
}

// ErrNotRunning means the session's socket does not answer.
var ErrNotRunning = quick.ErrNotRunning

// DialWait is how long Dial waits for a session's daemon to accept.
const DialWait = 2 * time.Second

// Dial connects to session id under root, waiting up to DialWait.
func Dial(root, id string) (*Conn, error) { return DialTimeout(root, id, DialWait) }

// DialTimeout is Dial waiting up to timeout. An error wraps ErrNotRunning.
func DialTimeout(root, id string, timeout time.Duration) (*Conn, error) {
	p := layout.At(root).Paths(id).Sock()
	uc, err := DialSocket(p, timeout)
	if err != nil {
		return nil, fmt.Errorf("connect to session %s: %w: %w", id, ErrNotRunning, err)
	}
	return &Conn{c: uc, w: uc, r: proto.NewReader(uc)}, nil
}

// DialSocket connects to the session socket at path, within timeout.
// Every connection to a daemon goes through it: it connects to exactly
// the file fsx.SocketTarget checked, a socket of the registry's owner
// and never one reached through a symbolic link.
func DialSocket(path string, timeout time.Duration) (*net.UnixConn, error) {
	name, done, err := fsx.SocketTarget(path)
	if err != nil {
		return nil, err
	}
	defer done()
	c, err := net.DialTimeout("unix", name, timeout)
	if err != nil {
		if name != path {
			var op *net.OpError
			if errors.As(err, &op) {
				op.Addr = &net.UnixAddr{Name: path, Net: "unix"}
			}
		}
		return nil, err
	}
	return c.(*net.UnixConn), nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Raw exposes the socket, for deadlines.
func (c *Conn) Raw() *net.UnixConn { return c.c }

// direct makes the connection read and write with rawio, for the
// interactive attach, where every keystroke and its echo is a small
// write and read on an otherwise idle process (see rawio for what that
// spares). Nothing may be buffered yet; otherwise it does nothing.
func (c *Conn) direct() {
	if c.r.Buffered() > 0 {
		return
	}
	sc, err := c.c.SyscallConn()
	if err != nil {
		return
	}
	c.w = rawio.Conn{RC: sc}
	c.r = proto.NewReader(rawio.Conn{RC: sc})
}

// WriteFrame sends one frame; safe from several goroutines.
func (c *Conn) WriteFrame(t proto.Type, p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return proto.WriteFrame(c.w, t, p)
}

// RefusedError is a daemon's refusal of the connection (a REFUSED frame:
// too many connections, say), with its reason.
type RefusedError = quick.RefusedError

// Next reads the next frame; a refusal is an error.
func (c *Conn) Next() (proto.Frame, error) { return refusal(c.r.Next()) }

// NextStreaming reads the next frame, handing a DATA payload to data in
// pieces (see proto.Reader.NextStreaming).
func (c *Conn) NextStreaming(data func([]byte)) (proto.Frame, error) {
	return refusal(c.r.NextStreaming(data))
}

func refusal(f proto.Frame, err error) (proto.Frame, error) {
	if err == nil && IsRefusal(f.Type) {
		return f, RefusalOf(f.Payload)
	}
	return f, err
}

// IsRefusal reports whether a frame of type t refuses the connection:
// our REFUSED, or the Rust port's ATTACH_REFUSED.
func IsRefusal(t proto.Type) bool { return quick.IsRefusal(t) }

// RefusalOf is the *RefusedError of a refusal's payload, a reason from a
// daemon that may not be ours: what cannot be shown on a terminal (escape
// sequences, invalid UTF-8) is replaced, and it is cut to 500 characters.
func RefusalOf(payload []byte) *RefusedError { return quick.RefusalOf(payload) }

// Send types data into the session, in frames of at most 1 MiB.
func (c *Conn) Send(data []byte) error {
	for len(data) > 0 {
		n := min(len(data), 1<<20)
		if err := c.WriteFrame(proto.Data, data[:n]); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// SendAsking types data as Send does and asks for a STATUS reply after
// it, all in one write, and says how many bytes of it left: the reply,
// when it comes, says the daemon has read data (it answers a connection's
// frames in order). A write that fails with nothing written sent nothing,
// so it is safe to make again on another connection; one that fails part
// way may have typed some of data.
func (c *Conn) SendAsking(data []byte) (int, error) {
	var buf []byte
	for len(data) > 0 {
		n := min(len(data), 1<<20)
		buf = proto.AppendFrame(buf, proto.Data, data[:n])
		data = data[n:]
	}
	buf = proto.AppendFrame(buf, proto.Status, nil)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.w.Write(buf)
}

// Detach asks the daemon to close this connection.
func (c *Conn) Detach() error { return c.WriteFrame(proto.Detach, nil) }

// StatusTimeout bounds a STATUS round trip; a daemon that cannot answer in
// that time is wedged, and saying so beats hanging a status bar.
const StatusTimeout = 2 * time.Second

// ExitError is an EXIT frame that came instead of the reply a request
// waited for: the session has ended.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return "exited with code " + strconv.Itoa(e.Code) }

// Status asks the daemon for its STATUS and returns the reply's payload,
// as sent (proto.ParseStatus reads it; a caller that prints it passes on
// fields this version does not know). Other frames before the reply are
// skipped (the original's daemon sends a command connection the live
// output too), except EXIT, which is an *ExitError, and REFUSED, a
// *RefusedError.
func (c *Conn) Status(timeout time.Duration) ([]byte, error) {
	c.c.SetDeadline(time.Now().Add(timeout))
	defer c.c.SetDeadline(time.Time{})
	if err := c.WriteFrame(proto.Status, nil); err != nil {
		return nil, fmt.Errorf("send STATUS: %w", err)
	}
	for {
		f, err := c.Next()
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			return nil, err
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, fmt.Errorf("no STATUS reply within %v", timeout)
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil, errors.New("the daemon closed the connection without a STATUS reply")
		case err != nil:
			return nil, fmt.Errorf("read STATUS: %w", err)
		case f.Type == proto.Status:
			return f.Payload, nil
		case f.Type == proto.Exit:
			return nil, &ExitError{Code: proto.ParseExitCode(f.Payload)}
		}
	}
}

// Snapshot is a baseline: the size and the serialized screen.
type Snapshot struct {
	Rows, Cols int
	Screen     []byte
	// Exited is set when an EXIT frame arrived with the baseline.
	Exited bool
	Code   int
}

// Peek becomes a read-only client and returns its baseline. The
// connection then carries the live stream (see Follow).
func (c *Conn) Peek(flags byte) (Snapshot, error) {
	if err := c.WriteFrame(proto.Peek, proto.PeekRequest(flags)); err != nil {
		return Snapshot{}, err
	}
	return c.readBaseline()
}

// AttachFrame becomes a writable client of the given size and returns its
// baseline.
func (c *Conn) AttachFrame(rows, cols int) (Snapshot, error) {
	if err := c.WriteFrame(proto.Attach, proto.Size(rows, cols)); err != nil {
		return Snapshot{}, err
	}
	return c.readBaseline()
}

func (c *Conn) readBaseline() (Snapshot, error) {
	var s Snapshot
	for {
		f, err := c.Next()
		if err != nil {
			return s, fmt.Errorf("read screen: %w", err)
		}
		switch f.Type {
		case proto.Geometry:
			s.Rows, s.Cols, _ = proto.ParseSize(f.Payload)
		case proto.Screen:
			s.Screen = f.Payload
			return s, nil
		case proto.Exit:
			s.Exited, s.Code = true, proto.ParseExitCode(f.Payload)
		}
	}
}

// Peek is a one-shot Peek on a fresh connection.
func Peek(root, id string, flags byte) (Snapshot, error) {
	c, err := Dial(root, id)
	if err != nil {
		return Snapshot{}, err
	}
	defer c.Close()
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	return c.Peek(flags)
}

// Send is a one-shot Send on a fresh connection. It returns once the
// daemon has read everything (it closes its end after our EOF... or the
// data is in the socket buffer, which the daemon drains before EOF).
func Send(root, id string, data []byte) error {
	c, err := Dial(root, id)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Send(data)
}

// Status is a one-shot Status on a fresh connection; errors name the
// session.
func Status(root, id string, timeout time.Duration) ([]byte, error) {
	c, err := DialTimeout(root, id, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	b, err := c.Status(timeout)
	if err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return b, nil
}

// Follow reads the live stream after Peek or AttachFrame, calling fn for
// each frame until fn returns false, an EXIT arrives (returned as code,
// true) or the connection ends.
func (c *Conn) Follow(fn func(f proto.Frame) bool) (code int, exited bool, err error) {
	for {
		f, err := c.Next()
		if err != nil {
			return 0, false, err
		}
		if f.Type == proto.Exit {
			fn(f)
			return proto.ParseExitCode(f.Payload), true, nil
		}
		if !fn(f) {
			return 0, false, nil
		}
	}
}
