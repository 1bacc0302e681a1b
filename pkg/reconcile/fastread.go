package reconcile

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// A quiet pass reads every session's metadata and pid file and asks the
// kernel about every daemon, so its cost is mostly syscalls. os.Open adds
// an fcntl and a poller registration to each open and os.ReadFile an
// fstat; these raw reads do open, read, close, and nothing else.

// readRaw reads a small regular file into buf (grown as needed). A read
// shorter than asked is the end of a regular file.
func readRaw(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0) // a FIFO reads as empty, see layout.OpenNoFollow
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

// daemonAlive is layout.DaemonAliveGen with raw reads: the pid file
// decides, once its pid proves to be the daemon of this generation (a
// zombie, or a pid since reused, is dead); with no pid file, the socket is
// asked.
func daemonAlive(root, id, gen string, buf []byte) (bool, int) {
	p := layout.PathsFor(root, id)
	b, err := readRaw(p.Pid(), buf)
	if err == nil {
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && pid > 0 {
			return layout.DaemonPidAlive(pid, root, id, gen), pid
		}
	}
	if _, err := os.Lstat(p.Sock()); err != nil {
		return false, 0
	}
	c, err := client.DialSocket(p.Sock(), 200*time.Millisecond)
	if err != nil {
		return false, 0
	}
	c.Close()
	return true, 0
}
