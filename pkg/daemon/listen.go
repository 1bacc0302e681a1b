package daemon

import (
	"errors"
	"net"
	"time"
)

// The session socket is package net's: a listener written by hand with
// bare syscalls on the runtime poller saved an idle session no private
// memory and no page faults at start that could be told from the noise
// between two daemons (smaps_rollup and /proc/PID/stat of idle daemons
// side by side), while package net's code is in the binary once, shared by
// every session.

// listenUnix binds and listens on a unix socket at path. The socket file
// outlives the listener's Close: removeOwned removes it, and only while it
// is still ours.
func listenUnix(path string) (*net.UnixListener, error) {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		// The system call's error ("bind: address already in use"): the
		// caller names the path.
		var oe *net.OpError
		if errors.As(err, &oe) {
			err = oe.Err
		}
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// drainWait is how long, once the socket file is gone, the daemon waits
// for a connection beyond those already queued: none can come any more,
// but net's Accept with a deadline already past would not even take the
// queued ones.
const drainWait = time.Millisecond
