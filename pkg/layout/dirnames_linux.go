package layout

import (
	"os"

	"golang.org/x/sys/unix"
)

// eachDirName calls f with the name of every entry of the directory open
// as fd (path root), read by getdents into buf.
func eachDirName(root string, fd int, buf []byte, f func(name string)) error {
	var names []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: root, Err: err}
		}
		if n <= 0 {
			return nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names[:0])
		for _, name := range names {
			f(name)
		}
	}
}
