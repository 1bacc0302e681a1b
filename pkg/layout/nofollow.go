package layout

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
	b, err := readFileNoFollow(path)
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

// readFileNoFollow reads with bare system calls (see readFileRaw); errors
// are the bare errno.
func readFileNoFollow(path string) ([]byte, error) {
	return readFileFlags(path, syscall.O_NOFOLLOW)
}
