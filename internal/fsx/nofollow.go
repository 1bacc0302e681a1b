// Package fsx holds the file primitives of pty's registry: opens that
// refuse symbolic links and FIFOs, atomic writes and their temporary
// names, durability, lock files, and the checked connect to a session
// socket. pkg/layout builds the registry on them and keeps them out of
// its public API; pty's own commands use them directly. Nothing here may
// use fmt or reflect on a path the session daemon reaches (it links
// this package), and nothing here knows the registry's layout: whatever
// a function needs to know about it is a parameter.
package fsx

import (
	"errors"
	"os"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
)

// Files in the root are opened without following symbolic links: a link
// planted as <id>.events.jsonl or <id>.json would otherwise make pty read
// or append to whatever it points at, with the rights of whoever runs
// pty. A link gives ELOOP, reported by ErrSymlink's message.

// ErrSymlink is matched by errors for a file in the root that is a
// symbolic link.
var ErrSymlink = errors.New("is a symbolic link; pty does not follow links in its root: remove it")

// ErrNotRegular is matched by errors for a file in the root that should be
// a regular file and is a FIFO, a device or a socket.
var ErrNotRegular = errors.New("is not a regular file (a FIFO, device or socket); pty reads no such file in its root: remove it")

// OpenNoFollow is os.OpenFile that refuses a symbolic link as the last
// component of path.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	// O_NONBLOCK: a FIFO planted under a session's file name would
	// otherwise block the open until someone opened its other end, and
	// every command that reads the root would hang on it.
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ENXIO) {
		// A FIFO opened to write with nobody reading it.
		return nil, errs.Text(path+" "+ErrNotRegular.Error(), ErrNotRegular)
	}
	if err != nil {
		return nil, symlinkErr(path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeDevice|os.ModeSocket) != 0 {
		f.Close()
		return nil, errs.Text(path+" "+ErrNotRegular.Error(), ErrNotRegular)
	}
	return f, nil
}

// ReadFileNoFollow is os.ReadFile that refuses a symbolic link.
func ReadFileNoFollow(path string) ([]byte, error) {
	b, err := ReadFileMax(path, syscall.O_NOFOLLOW, -1)
	if err != nil {
		return nil, symlinkErr(path, &os.PathError{Op: "open", Path: path, Err: err})
	}
	return b, nil
}

func symlinkErr(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return errs.Text(path+" "+ErrSymlink.Error(), ErrSymlink)
	}
	return err
}

// ErrTooLarge is returned by ReadFileMax for a file over its bound.
var ErrTooLarge = errors.New("file too large")

// ReadFileMax reads path with bare system calls, opened with flags added
// to O_RDONLY|O_CLOEXEC|O_NONBLOCK: os.ReadFile's stat, non-blocking setup
// and second read cost as much as the open on a slow-syscall machine. It
// reads at most max bytes (no bound when max < 0) and fails with
// ErrTooLarge past them, without reading more. Errors are the bare errno.
func ReadFileMax(path string, flags int, max int) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|flags, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	// A session's record fits in this; a larger file grows the buffer.
	// A bigger start would cost the daemon, which reads its record for
	// each attach and STATUS, memory it keeps until its collector runs.
	buf := make([]byte, 0, 1024)
	for {
		if max >= 0 && len(buf) > max {
			return nil, ErrTooLarge
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
