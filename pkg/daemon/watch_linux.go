package daemon

import (
	"errors"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileWatch is an inotify instance watching the session's own files (by
// inode: an unlink or a rename over one changes its link count) and the
// root directory itself, not the root's entries: a daemon is woken by a
// change to one of its own files, never by the other sessions' writes or
// by time. watchLoop reads it, parked in the runtime's poller. Where no
// instance can be had (the per-user limit on instances is often 128) it
// looks every pollEvery instead.
type fileWatch struct {
	f *os.File // nil without inotify; set by newFileWatch, constant after
	// woken: wake was called since next last looked (see next).
	woken atomic.Bool
	poll  poller
	// failed: reading the instance failed, and next polls from then on.
	// Owned by watchLoop, as is buf.
	failed bool
	buf    [64 * unix.SizeofInotifyEvent]byte // the watches carry no names
}

const (
	fileMask = unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	dirMask  = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR
)

func newFileWatch() *fileWatch {
	w := &fileWatch{poll: newPoller()}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		w.failed = true
		return w
	}
	w.f = os.NewFile(uintptr(fd), "inotify")
	return w
}

// arm watches the inodes now at the root and the files. A file that
// is missing is not watched; the daemon publishes it again, then arms
// once more. Watching an inode already watched changes nothing; one no
// longer at its path drops out by itself when it is freed.
func (w *fileWatch) arm(root string, files ...string) {
	if w.f == nil || w.failed {
		return
	}
	fd := int(w.f.Fd()) // non-blocking already: Fd leaves it so
	unix.InotifyAddWatch(fd, root, dirMask)
	for _, f := range files {
		unix.InotifyAddWatch(fd, f, fileMask)
	}
}

// next waits until a watched file changes, timeout passes (0: no limit)
// or wake is called, and reports whether a change came.
//
// A wake sets woken, then moves the read's deadline to now; next sets
// the deadline, then looks at woken. Whichever order the two go in, a
// wake is never slept through.
func (w *fileWatch) next(timeout time.Duration) bool {
	if w.failed {
		return w.poll.next(timeout)
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	if w.f.SetReadDeadline(deadline) != nil {
		w.failed = true // not in the poller: it could not be woken
		return false
	}
	if w.woken.Swap(false) {
		return false
	}
	n, err := w.f.Read(w.buf[:])
	if err != nil {
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			w.failed = true // never seen: poll rather than spin on it
		}
		return false
	}
	for off := 0; off+unix.SizeofInotifyEvent <= n; {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
		if ev.Mask&^unix.IN_IGNORED != 0 {
			return true
		}
		off += unix.SizeofInotifyEvent + int(ev.Len)
	}
	return false
}

// wake makes next return now, or the next call at once; any goroutine's.
func (w *fileWatch) wake() {
	w.woken.Store(true)
	if w.f != nil {
		w.f.SetReadDeadline(time.Now())
	}
	w.poll.wake()
}

func (w *fileWatch) close() {
	if w.f != nil {
		w.f.Close()
	}
	w.poll.stop()
}
