package layout

import (
	"github.com/ptyorg/pty/internal/fsx"
	"syscall"
)

// peerCredKnown says whether socketPeerPid can name a socket's listener.
const peerCredKnown = true

// socketPeerPid returns the pid of the process listening on the unix
// socket at path, as the kernel records it for the connection
// (SO_PEERCRED), or 0. It names a daemon that left no pid file (the
// original pty's) or whose record is unreadable, so it can still be
// stopped.
func socketPeerPid(path string) int {
	fd, err := fsx.UnixSocket()
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	name, done, err := fsx.SocketTarget(path)
	if err != nil {
		return 0
	}
	defer done()
	if syscall.SetNonblock(fd, true) != nil || syscall.Connect(fd, &syscall.SockaddrUnix{Name: name}) != nil {
		return 0
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || cred.Pid <= 0 {
		return 0
	}
	return int(cred.Pid)
}
