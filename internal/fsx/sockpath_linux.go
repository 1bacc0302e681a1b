package fsx

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// socketTarget opens the socket itself (O_PATH, not following a link),
// checks that descriptor, and names it as /proc/self/fd/N: connect(2)
// through that name reaches the very inode checked, so a rename or a
// link put in its place between the check and the connect changes
// nothing. Without /proc it checks the path and connects to it by name.
func socketTarget(path string) (string, func(), error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return "", nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if err := checkSocketStat(path, &st); err != nil {
		unix.Close(fd)
		return "", nil, err
	}
	name := "/proc/self/fd/" + strconv.Itoa(fd)
	var self syscall.Stat_t
	if syscall.Stat(name, &self) != nil || self.Ino != st.Ino || self.Dev != st.Dev {
		unix.Close(fd)
		return path, func() {}, nil
	}
	return name, func() { unix.Close(fd) }, nil
}
