//go:build darwin

package daemon

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/proto"
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

func resourcesOf(pid int) *proto.Resources { return nil }

// cloexecFrom has no one-call form here; keepDescriptorsFromChild lists
// the descriptors instead.
func cloexecFrom(int) error { return errors.ErrUnsupported }
