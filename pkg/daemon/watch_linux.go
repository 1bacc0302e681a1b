package daemon

import (
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileWatch is an inotify instance watching the session's own files (by
// inode: an unlink or a rename over one changes its link count) and the
// root directory itself, not the root's entries: a daemon is woken by a
// change to one of its own files, never by the other sessions' writes or
// by time. One goroutine reads it, parked in the runtime's poller. Where
// no instance can be had (the per-user limit on instances is often 128)
// it looks every pollEvery instead.
type fileWatch struct {
	f *os.File
	t *time.Ticker
	C <-chan time.Time // a change to look at
}

const (
	fileMask = unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	dirMask  = unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR
)

func newFileWatch() *fileWatch {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t := time.NewTicker(pollEvery)
		return &fileWatch{t: t, C: t.C}
	}
	c := make(chan time.Time, 1)
	w := &fileWatch{f: os.NewFile(uintptr(fd), "inotify"), C: c}
	go w.read(c)
	return w
}

// arm watches the inodes now at the root and the files. A file that
// is missing is not watched; the daemon publishes it again, then arms
// once more. Watching an inode already watched changes nothing; one no
// longer at its path drops out by itself when it is freed.
func (w *fileWatch) arm(root string, files ...string) {
	if w.f == nil {
		return
	}
	fd := int(w.f.Fd())
	unix.InotifyAddWatch(fd, root, dirMask)
	for _, f := range files {
		unix.InotifyAddWatch(fd, f, fileMask)
	}
}

func (w *fileWatch) read(c chan<- time.Time) {
	var buf [64 * unix.SizeofInotifyEvent]byte // the watches carry no names
	for {
		n, err := w.f.Read(buf[:])
		if err != nil {
			return // closed
		}
		changed := false
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&^unix.IN_IGNORED != 0 {
				changed = true
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
		if changed {
			select {
			case c <- time.Now():
			default:
			}
		}
	}
}

func (w *fileWatch) close() {
	if w.f != nil {
		w.f.Close()
	}
	if w.t != nil {
		w.t.Stop()
	}
}
