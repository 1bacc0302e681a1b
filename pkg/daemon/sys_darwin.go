//go:build darwin

package daemon

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeSubreaper: macOS has no subreaper; stops sweep the child's process
// group instead.
func becomeSubreaper() {}

func peerUID(c syscall.Conn) (int, error) {
	sc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var uerr error
	err = sc.Control(func(fd uintptr) {
		var cred *unix.Xucred
		cred, uerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if uerr == nil {
			uid = int(cred.Uid)
		}
	})
	if err != nil {
		return -1, err
	}
	return uid, uerr
}

func resourcesOf(pid int) *Resources { return nil }
