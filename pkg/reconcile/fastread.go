package reconcile

import (
	"os"
	"syscall"
)

// A quiet pass reads every session's metadata, so its cost is mostly
// syscalls (whether a daemon lives is asked of layout, as every command
// asks it). os.Open adds an fcntl and a poller registration to each open
// and os.ReadFile an fstat; these raw reads do open, read, close, and
// nothing else.

// readRaw reads a small regular file into buf (grown as needed). A read
// shorter than asked is the end of a regular file.
func readRaw(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b := buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		want := cap(b) - len(b)
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		b = b[:len(b)+n]
		if n < want {
			return b, nil
		}
	}
}
