package layout

import (
	"bytes"
	"encoding/binary"
	"os"

	"golang.org/x/sys/unix"
)

// eachDirName calls f with the name of every entry of the directory open
// as fd (path root), read by getdents into buf: name is valid only during
// the call.
func eachDirName(root string, fd int, buf []byte, f func(name []byte)) error {
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
		// struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen
		// (2), d_type (1), then the name, NUL-terminated and padded.
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			f(name)
			b = b[reclen:]
		}
	}
}
