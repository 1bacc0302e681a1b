package fsx

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
)

// ErrNotSocket is matched by errors for a session socket path that is
// not a socket of the registry's owner.
var ErrNotSocket = errors.New("is not a session socket")

// SocketTarget checks the session socket at path before anything
// connects to it: it must be a socket, not a symbolic link (a link
// planted as <id>.sock would send one session's input to another), and
// be owned by the caller or by the owner of the directory that holds it
// (the registry's owner). It returns the name to connect to, which names
// exactly the file checked (see socketTarget), and a function to call once
// connected. A missing socket gives an error matching os.ErrNotExist.
func SocketTarget(path string) (string, func(), error) {
	return socketTarget(path)
}

// checkSocketStat is the check of SocketTarget on the file's stat.
func checkSocketStat(path string, st *syscall.Stat_t) error {
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFSOCK:
	case syscall.S_IFLNK:
		return errs.Text(path+" "+ErrSymlink.Error(), ErrSymlink)
	default:
		return errs.Text(path+" is not a socket; pty connects only to a session's own socket: remove it", ErrNotSocket)
	}
	uid := uint32(os.Geteuid())
	if st.Uid == uid {
		return nil
	}
	var dir syscall.Stat_t
	if err := syscall.Stat(dirOf(path), &dir); err == nil && dir.Uid == st.Uid {
		return nil
	}
	return errs.Text(path+" is owned by uid "+strconv.FormatUint(uint64(st.Uid), 10)+", neither you nor the owner of its directory; pty does not connect to it: remove it", ErrNotSocket)
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			if i == 0 {
				return "/"
			}
			return path[:i]
		}
	}
	return "."
}
