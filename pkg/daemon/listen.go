package daemon

import (
	"errors"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// The session socket is package net's: a listener written by hand with
// bare syscalls on the runtime poller saved an idle session no private
// memory and no page faults at start that could be told from the noise
// between two daemons (smaps_rollup and /proc/PID/stat of idle daemons
// side by side), while package net's code is in the binary once, shared by
// every session.

// fileListener serves the listening socket fd that the launcher bound
// (the descriptor is the listener's from then on). The socket file outlives
// the listener's Close: removeOwned removes it, and only while it is still
// ours.
func fileListener(fd int, path string) (*net.UnixListener, error) {
	f := os.NewFile(uintptr(fd), path)
	defer f.Close() // FileListener holds a duplicate
	l, err := net.FileListener(f)
	if err != nil {
		return nil, err
	}
	ln, ok := l.(*net.UnixListener)
	if !ok {
		l.Close()
		return nil, errors.New(path + " is not a unix socket")
	}
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// acceptQueued accepts a connection already queued on ln without waiting
// for one, and reports false when there is none. It is what drains the
// socket at the end (stopAccepting): net's Accept with a deadline already
// past does not even look at the queue, and one a little ahead may pass
// before a busy daemon looks.
func acceptQueued(ln *net.UnixListener) (*net.UnixConn, bool) {
	rc, err := ln.SyscallConn()
	if err != nil {
		return nil, false
	}
	nfd := -1
	cerr := rc.Control(func(fd uintptr) {
		for {
			nfd, err = acceptNonblock(int(fd))
			if err != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil || err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(nfd), "client")
	defer f.Close() // FileConn holds a duplicate
	c, err := net.FileConn(f)
	if err != nil {
		return nil, false
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
	}
	return uc, ok
}
