package client

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// QuickPeek is Peek for the hot path of "pty peek ID", which scripts and
// status bars run in loops: it connects straight to the socket of the
// session whose id is exactly id, without reading the registry, and uses
// a blocking socket with kernel timeouts instead of the runtime's poller,
// so the whole exchange is a handful of system calls on one thread.
//
// Any error (an invalid id, no daemon answering, a timeout, a daemon that
// hangs up) means "take the long way": resolve the reference and use
// Peek, which also handles names and ended sessions.
func QuickPeek(root, id string, flags byte, timeout time.Duration) ([]byte, error) {
	if err := layout.ValidateID(id); err != nil {
		return nil, err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	unix.CloseOnExec(fd)
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	sa := &unix.SockaddrUnix{Name: layout.PathsFor(root, id).Sock()}
	if err := retry(func() error { return unix.Connect(fd, sa) }); err != nil {
		return nil, ErrNotRunning
	}
	req := proto.AppendFrame(nil, proto.Peek, []byte{flags})
	for len(req) > 0 {
		var n int
		if err := retry(func() (err error) { n, err = unix.Write(fd, req); return err }); err != nil {
			return nil, err
		}
		req = req[n:]
	}
	// GEOMETRY, then SCREEN (the one we want), perhaps EXIT between them.
	buf := make([]byte, 0, 16<<10)
	for {
		for len(buf) >= proto.HeaderLen {
			n := binary.BigEndian.Uint32(buf[1:proto.HeaderLen])
			if n > proto.MaxPayload {
				return nil, proto.ErrTooLarge
			}
			end := proto.HeaderLen + int(n)
			if len(buf) < end {
				if cap(buf) < end {
					buf = append(make([]byte, 0, end), buf...)
				}
				break
			}
			if proto.Type(buf[0]) == proto.Screen {
				if exitFollows(fd, buf[end:]) {
					// An ended session lingering to tell its clients:
					// the long way prints its saved last lines.
					return nil, ErrNotRunning
				}
				return buf[proto.HeaderLen:end], nil
			}
			buf = buf[:copy(buf, buf[end:])]
		}
		var n int
		err := retry(func() (err error) { n, err = unix.Read(fd, buf[len(buf):cap(buf)]); return err })
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		buf = buf[:len(buf)+n]
	}
}

// exitFollows reports whether an EXIT frame comes right after the
// baseline: the daemon queues it with the baseline when the session has
// already ended, and sends both in one write.
func exitFollows(fd int, rest []byte) bool {
	if len(rest) == 0 {
		var b [proto.HeaderLen]byte
		n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_DONTWAIT|unix.MSG_PEEK)
		if err != nil || n < 1 {
			return false
		}
		rest = b[:n]
	}
	return proto.Type(rest[0]) == proto.Exit
}

// retry repeats a system call interrupted by a signal (the runtime's own
// preemption signals included: a socket with a timeout is not restarted).
func retry(f func() error) error {
	for {
		err := f()
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// PrintScreen writes a peeked screen the way pty peek prints it: as the
// daemon sent it (plain text without trailing blank lines), ending in
// exactly one newline.
func PrintScreen(w io.Writer, b []byte, plain bool) error {
	out := string(b)
	if plain {
		out = strings.TrimRight(out, "\n")
	}
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	_, err := io.WriteString(w, out)
	return err
}
