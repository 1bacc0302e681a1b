//go:build !linux

package daemon

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// acceptNonblock accepts a connection as a non-blocking, close-on-exec
// descriptor. Without accept4, ForkLock keeps an exec from inheriting it
// before it is close-on-exec.
func acceptNonblock(fd int) (int, error) {
	syscall.ForkLock.RLock()
	nfd, _, err := unix.Accept(fd)
	if err == nil {
		unix.CloseOnExec(nfd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(nfd, true); err != nil {
		unix.Close(nfd)
		return -1, err
	}
	return nfd, nil
}
