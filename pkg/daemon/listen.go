package daemon

import (
	"os"
	"sync/atomic"
	"syscall"
)

// listener is the session socket, served with bare syscalls on the
// runtime poller instead of package net. It saves no measurable private
// memory per session: what package net would add is about 400 KB of
// binary, shared by the sessions (Pss: all of it for a lone session, a
// share of it each for many). Accepted connections are plain *os.File
// values, which read, write and close through the same poller as
// net.Conn does.
type listener struct {
	f      *os.File
	raw    syscall.RawConn
	closed atomic.Bool
}

// fileListener serves the listening, non-blocking socket fd.
func fileListener(fd int, path string) (*listener, error) {
	l := &listener{f: os.NewFile(uintptr(fd), path)}
	var err error
	if l.raw, err = l.f.SyscallConn(); err != nil {
		l.f.Close()
		return nil, err
	}
	return l, nil
}

// AcceptUnix waits for a connection. Once the listener is closed it
// returns os.ErrClosed, the error acceptLoop stops on.
func (l *listener) AcceptUnix() (*os.File, error) {
	var nfd int
	var aerr error
	err := l.raw.Read(func(fd uintptr) bool {
		nfd, aerr = acceptCloexec(int(fd))
		return aerr != syscall.EAGAIN
	})
	switch {
	case l.closed.Load():
		if err == nil && aerr == nil {
			syscall.Close(nfd)
		}
		return nil, os.ErrClosed
	case err != nil:
		return nil, err
	case aerr != nil:
		return nil, os.NewSyscallError("accept", aerr)
	}
	return os.NewFile(uintptr(nfd), "client"), nil
}

// acceptNow accepts a connection already waiting, without waiting for
// one: the error is EAGAIN when there is none.
func (l *listener) acceptNow() (*os.File, error) {
	var nfd int
	var aerr error
	if err := l.raw.Control(func(fd uintptr) { nfd, aerr = acceptCloexec(int(fd)) }); err != nil {
		return nil, err
	}
	if aerr != nil {
		return nil, aerr
	}
	return os.NewFile(uintptr(nfd), "client"), nil
}

// Close stops accepting; the socket file stays, removeOwned deals with it.
func (l *listener) Close() error {
	l.closed.Store(true)
	return l.f.Close()
}

// acceptCloexec accepts one connection as a non-blocking descriptor no
// child inherits.
func acceptCloexec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	nfd, _, err := syscall.Accept(fd)
	if err == nil {
		syscall.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := syscall.SetNonblock(nfd, true); err != nil {
		syscall.Close(nfd)
		return -1, err
	}
	return nfd, nil
}
