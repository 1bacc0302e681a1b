package client

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// reopenNonblock opens the terminal f refers to again, as a new open file
// description in non-blocking mode, so that it sits on the runtime's
// poller without changing f's own (shared with the shell) to
// non-blocking. It returns nil when f is not a terminal device or the
// reopen fails; the caller then keeps using f.
func reopenNonblock(f *os.File, flag int) (*os.File, syscall.RawConn) {
	fd := int(f.Fd())
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !strings.HasPrefix(name, "/dev/") {
		return nil, nil
	}
	g, err := os.OpenFile(name, flag|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil
	}
	// Not g.Fd(): it would put g back into blocking mode.
	rc, err := g.SyscallConn()
	if err != nil {
		g.Close()
		return nil, nil
	}
	same := false
	rc.Control(func(gfd uintptr) {
		var a, b unix.Stat_t
		same = unix.Fstat(fd, &a) == nil && unix.Fstat(int(gfd), &b) == nil && a.Rdev == b.Rdev
	})
	if !same {
		g.Close()
		return nil, nil
	}
	return g, rc
}
