package daemon

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// listener is the session's listening socket: its descriptor on the
// runtime's poller, and the connections it accepts are plain files on the
// poller too. Not package net: in a program this small its set-up (the
// resolver's tables and the like, written at start) is private memory
// every session pays, and the daemon needs nothing of it but accept.
type listener struct {
	f      *os.File
	rc     syscall.RawConn
	closed atomic.Bool
}

// errListenerClosed is accept's error once Close has been called.
var errListenerClosed = errors.New("listener closed")

// fileListener serves the listening socket fd, which is non-blocking and
// close-on-exec (the descriptor is the listener's from then on). The
// socket file outlives the listener's Close: removeOwned removes it, and
// only while it is still ours.
func fileListener(fd int, path string) (*listener, error) {
	f := os.NewFile(uintptr(fd), path)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &listener{f: f, rc: rc}, nil
}

// accept waits for a connection. Its errors: errListenerClosed after
// Close, os.ErrDeadlineExceeded past setDeadline's time, and accept(2)'s
// own (EMFILE and the like).
func (l *listener) accept() (*os.File, error) {
	nfd := -1
	var aerr error
	err := l.rc.Read(func(fd uintptr) bool {
		nfd, aerr = acceptOne(int(fd))
		return aerr != unix.EAGAIN
	})
	if err == nil && aerr == nil {
		// Served even when Close came meanwhile (republish replaces the
		// listener while this one still accepts): the peer connected.
		return os.NewFile(uintptr(nfd), "client"), nil
	}
	if l.closed.Load() {
		return nil, errListenerClosed
	}
	if err != nil {
		return nil, err
	}
	return nil, aerr
}

// acceptQueued accepts a connection already queued without waiting for
// one, and reports false when there is none. It is what drains the socket
// at the end (stopAccepting) and when it is replaced (republish).
func (l *listener) acceptQueued() (*os.File, bool) {
	nfd := -1
	var aerr error
	if err := l.rc.Control(func(fd uintptr) { nfd, aerr = acceptOne(int(fd)) }); err != nil || aerr != nil {
		return nil, false
	}
	return os.NewFile(uintptr(nfd), "client"), true
}

// acceptOne is one accept, past interruptions and connections that were
// reset before they were taken.
func acceptOne(fd int) (int, error) {
	for {
		nfd, err := acceptNonblock(fd)
		if err != unix.EINTR && err != unix.ECONNABORTED {
			return nfd, err
		}
	}
}

// setDeadline makes a waiting accept, and any after it, return
// os.ErrDeadlineExceeded from t on.
func (l *listener) setDeadline(t time.Time) error { return l.f.SetDeadline(t) }

func (l *listener) Close() error {
	l.closed.Store(true)
	return l.f.Close()
}
