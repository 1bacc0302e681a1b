// Package rawio makes non-blocking reads and writes without telling the Go
// scheduler that a system call is under way.
//
// Why: entering a system call wakes the runtime's monitor thread (sysmon)
// when it sleeps, as it does whenever the process is idle. A keystroke's
// round trip through a session is a chain of idle processes each making a
// few small system calls, and each of them paid a futex wake-up of a
// thread on another CPU (an inter-processor interrupt, costly in a VM),
// plus that thread's polling for the next millisecond. A non-blocking
// call returns at once, so there is nothing for the scheduler to hand
// off; these are only for descriptors in non-blocking mode (or calls
// with MSG_DONTWAIT), where no call can block.
package rawio

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// Conn reads and writes a non-blocking descriptor on the runtime's poller
// (an os.File opened with O_NONBLOCK, a net.Conn) with Read and Write of
// this package: it waits for readiness through the poller as the
// standard library does, without the system-call bookkeeping.
type Conn struct{ RC syscall.RawConn }

// Read reads into b, waiting until something is there; io.EOF at the end.
func (c Conn) Read(b []byte) (int, error) {
	var n int
	var err error
	rerr := c.RC.Read(func(fd uintptr) bool {
		for {
			n, err = Read(int(fd), b)
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	switch {
	case rerr != nil:
		return 0, rerr
	case err != nil:
		return 0, err
	case n == 0 && len(b) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of b, waiting for room when the descriptor is full.
func (c Conn) Write(b []byte) (int, error) {
	done := 0
	var err error
	werr := c.RC.Write(func(fd uintptr) bool {
		for done < len(b) {
			var n int
			n, err = Write(int(fd), b[done:])
			switch err {
			case nil:
				done += n
			case unix.EINTR:
			case unix.EAGAIN:
				err = nil
				return false
			default:
				return true
			}
		}
		return true
	})
	if werr != nil {
		return done, werr
	}
	return done, err
}
