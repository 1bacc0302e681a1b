package daemon

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
)

// A running session's files (its socket, pid file and record) can be
// unlinked under it: a mistaken rm, a tmp cleaner. Its program runs on,
// but every client would call it gone and gc would take it for vanished.
// The daemon watches the three files and the root directory
// (fileWatch: inotify where there is one, so an idle daemon is woken only
// when one of its own files changes; a look every pollEvery elsewhere)
// and publishes what went missing again from what it holds: the socket
// is bound anew at its path, the pid file rewritten, and the record
// rewritten from the copy the daemon keeps open (the last version it
// saw, which an unlink does not destroy while it is open), through
// layout's writers, under the session's locks, with a
// session_republished event.
//
// It does not when the id has been taken meanwhile (a record of another
// generation, or another start's launch claim): that session is not
// clobbered. The daemon is then orphaned: it serves the clients it has
// until its program ends, writes nothing more to the registry, and
// removes nothing of the new session's; pty recover names it, so a user
// can stop it.
//
// Nor does it when the root directory itself went: nothing is created
// behind the user's back. pty recover recreates the root and sends
// SIGUSR1 to the verified daemons of it, which then adopt the new
// directory and publish themselves in it. SIGUSR1 also makes a daemon
// look at once, whatever its platform.
//
// republishDelay is how long after a change the daemon looks: a
// removal of the whole root (rm -r) has unlinked its files before it
// removes the directory, and a file published again meanwhile would make
// that removal fail.
const (
	republishDelay = time.Second
	pollEvery      = 5 * time.Second
	claimWait      = 5 * time.Second
)

// republisher is the watch's state. usr1 is set by Start (notifySignals),
// stop, done and watch by startWatching, all constant after; orphaned and adopt are atomic; the
// rest is owned by watchLoop.
type republisher struct {
	stop, done chan struct{}
	// usr1 is read by Serve's loop, which sets adopt and wakes the watch.
	usr1  chan os.Signal
	adopt atomic.Bool
	watch *fileWatch
	// orphaned: another generation has the id; nothing more is written.
	orphaned atomic.Bool
	// pubDev, pubIno: the root directory the daemon publishes in, for
	// the writers off watchLoop (writable); 0 before the watch starts.
	pubDev, pubIno atomic.Uint64

	// The files as the daemon published them or last saw them: the
	// root's device and inode, the pid file's inode, and the record,
	// open, with its inode. The socket's inode is Daemon.sockIno.
	rootDev, rootIno uint64
	rootGone         bool // removed or replaced: see rootHere
	pidIno           uint64
	rec              *os.File
	recIno           uint64
}

// startWatching starts watchLoop.
func (d *Daemon) startWatching() {
	r := &d.repub
	r.stop = make(chan struct{})
	r.done = make(chan struct{})
	r.watch = newFileWatch()
	r.rootDev, r.rootIno, _ = dirID(d.root)
	r.pubDev.Store(r.rootDev)
	r.pubIno.Store(r.rootIno)
	go d.watchLoop()
}

// stopWatching stops watchLoop and waits for it.
func (d *Daemon) stopWatching() {
	r := &d.repub
	if r.stop == nil {
		return
	}
	signal.Stop(r.usr1)
	close(r.stop)
	r.watch.wake()
	<-r.done
}

// watchLoop is the watch's one goroutine: it waits in the watch itself
// (fileWatch.next), parked in the runtime's poller where there is
// inotify, and is woken there for a stop or a SIGUSR1 (see Serve).
func (d *Daemon) watchLoop() {
	r := &d.repub
	w := r.watch
	defer close(r.done)
	defer w.close()
	defer func() {
		if r.rec != nil {
			r.rec.Close()
		}
	}()
	p := layout.At(d.root).Paths(d.id)
	d.noteRecord()
	r.pidIno = inodeOf(p.Pid())
	w.arm(d.root, p.Sock(), p.Pid(), p.Meta())
	if d.syncRecord {
		// Durable now that the launcher is not waiting: a permanent
		// session's record must survive a power loss for gc to bring
		// it back. Here rather than in a goroutine of its own, so that
		// the start's slow system calls do not overlap: each one that
		// does leaves the daemon an OS thread for good.
		d.recordErr("sync the record", fsx.SyncFile(p.Meta()))
	}
	// due is when to look, republishDelay after the first of the changes
	// that one look covers; zero while none waits.
	var due time.Time
	for !r.orphaned.Load() {
		changed := false
		if left := time.Until(due); due.IsZero() || left > 0 {
			changed = w.next(max(left, 0))
		}
		select {
		case <-r.stop:
			return
		default:
		}
		adopt := r.adopt.Swap(false)
		if !adopt {
			if changed && due.IsZero() {
				due = time.Now().Add(republishDelay)
			}
			if due.IsZero() || time.Now().Before(due) {
				continue
			}
		}
		due = time.Time{}
		if d.rootHere(adopt) {
			d.republish()
		}
		w.arm(d.root, p.Sock(), p.Pid(), p.Meta())
	}
}

// dirID is the device and inode of directory dir.
func dirID(dir string) (dev, ino uint64, ok bool) {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// rootHere reports whether the root directory is still the one the daemon
// publishes in. One that was removed or replaced stays gone to it until
// adopt (pty recover's SIGUSR1), which takes the root as it is now if it
// passes the checks every writer makes.
func (d *Daemon) rootHere(adopt bool) bool {
	r := &d.repub
	dev, ino, ok := dirID(d.root)
	if adopt {
		if !ok || rootdir.CheckPerms(d.root) != nil {
			return false
		}
		r.rootDev, r.rootIno, r.rootGone = dev, ino, false
		r.pubDev.Store(dev)
		r.pubIno.Store(ino)
		return true
	}
	if !ok || dev != r.rootDev || ino != r.rootIno {
		r.rootGone = true
	}
	return !r.rootGone
}

// rootOurs reports whether the daemon's root is still the directory it
// publishes in (not removed, nor replaced by another of the same name,
// since the watch started or pty recover made it adopt one), and the id
// still its own (not orphaned). Every write of the daemon into the root
// asks first: a daemon whose root was removed writes nothing into the
// directory being removed (a file made meanwhile would fail the rm -r)
// nor into a new one made at its path, until pty recover.
func (d *Daemon) rootOurs() bool {
	r := &d.repub
	if r.orphaned.Load() {
		return false
	}
	want := r.pubIno.Load()
	if want == 0 {
		return true // before the watch: the launcher has just published it
	}
	dev, ino, ok := dirID(d.root)
	return ok && dev == r.pubDev.Load() && ino == want
}

// writable reports whether the daemon may write its record, events and
// error log now: its root is its own (rootOurs) and its record is there.
// A record that is gone (being removed with the root, or by a mistaken
// rm until the watch publishes it again) takes no writes: each would
// make a file of the session, an event log or a lock, in a root that is
// going, or that holds no session for it.
func (d *Daemon) writable() bool {
	return d.rootOurs() && inodeOf(layout.At(d.root).Paths(d.id).Meta()) != 0
}

// noteRecord opens the record as it is on disk now as the copy to
// publish again: at the start, the launcher's (it wrote it for this
// generation before the daemon ran), and later one that was just read
// under the session's locks and found to be this generation's.
func (d *Daemon) noteRecord() {
	r := &d.repub
	f, err := fsx.OpenNoFollow(layout.At(d.root).Paths(d.id).Meta(), os.O_RDONLY, 0)
	if err != nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		f.Close()
		return
	}
	if r.rec != nil {
		r.rec.Close()
	}
	r.rec, r.recIno = f, uint64(st.Ino)
}

// readOpenRecord reads a record from an open file, from its start.
func readOpenRecord(f *os.File) (*layout.Metadata, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, layout.MaxRecordBytes))
	if err != nil {
		return nil, err
	}
	var m layout.Metadata
	if err := m.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return &m, nil
}

func inodeOf(path string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return 0
	}
	return uint64(st.Ino)
}

// republish looks at the session's files and, under the session's locks,
// publishes again what is missing or not the daemon's.
func (d *Daemon) republish() {
	r := &d.repub
	p := layout.At(d.root).Paths(d.id)
	if d.intact(p) {
		return
	}
	var files []string
	err := layout.At(d.root).Locked(d.id, claimWait, func() error {
		if g, ok := registry.ReadLaunchClaim(d.root, d.id); ok && g != d.gen {
			r.orphaned.Store(true) // another start has the id
			return nil
		}
		m, err := layout.At(d.root).Metadata(d.id)
		switch {
		case err == nil && m.Generation != d.gen:
			r.orphaned.Store(true)
			return nil
		case err == nil:
			d.noteRecord() // changed by a writer (a tag, a rename): the copy to keep
		case errors.Is(err, layout.ErrNotFound):
			if r.rec == nil {
				return errors.New("the record is gone and the daemon has no copy of it")
			}
			m, err := readOpenRecord(r.rec)
			if err != nil {
				return err
			}
			if m.Generation != d.gen {
				r.orphaned.Store(true) // replaced before the daemon first looked
				return nil
			}
			if err := layout.WriteMetadataNoSync(d.root, d.id, m); err != nil {
				return err
			}
			d.noteRecord()
			files = append(files, "record")
		default:
			return err // damaged: not the daemon's to overwrite
		}
		if layout.At(d.root).Pid(d.id) != os.Getpid() {
			if err := fsx.WriteFileAtomicNoSync(p.Pid(), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
				return err
			}
			files = append(files, "pid")
		}
		r.pidIno = inodeOf(p.Pid())
		if inodeOf(p.Sock()) != d.sockIno.Load() {
			if err := d.rebind(p.Sock()); err != nil {
				return err
			}
			files = append(files, "socket")
		}
		if len(files) == 0 {
			return nil
		}
		ev := layout.NewEvent(d.id, layout.EventSessionRepublished, "files", files)
		return layout.AppendEventsLocked(d.root, d.id, ev)
	})
	d.recordErr("publish the session's files again", err)
}

// intact reports whether the socket, the pid file and the record are
// still the ones the daemon published or saw.
func (d *Daemon) intact(p layout.Paths) bool {
	r := &d.repub
	return inodeOf(p.Sock()) == d.sockIno.Load() && r.pidIno != 0 && inodeOf(p.Pid()) == r.pidIno &&
		r.rec != nil && inodeOf(p.Meta()) == r.recIno
}

// rebind binds a new listening socket at path and serves it instead of
// the old one, whose file is gone: connections already queued on the old
// one are served first. What is at path, if it is not a socket something
// listens on, is debris (the record is this generation's) and goes.
func (d *Daemon) rebind(path string) error {
	if inodeOf(path) != 0 {
		if listening(path) {
			return errors.New(path + " is another program's listening socket: left alone")
		}
		os.Remove(path)
	}
	fd, err := fsx.UnixSocket()
	if err != nil {
		return os.NewSyscallError("socket", err)
	}
	old := unix.Umask(0o077)
	err = syscall.Bind(fd, &syscall.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err != nil {
		syscall.Close(fd)
		return os.NewSyscallError("bind", err)
	}
	os.Chmod(path, 0o600)
	ino := inodeOf(path)
	if err := syscall.Listen(fd, 1<<16-1); err != nil {
		syscall.Close(fd)
		os.Remove(path)
		return os.NewSyscallError("listen", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		os.Remove(path)
		return err
	}
	ln, err := fileListener(fd, path)
	if err != nil {
		os.Remove(path)
		return err
	}
	prev := d.ln.Swap(ln)
	d.sockIno.Store(ino)
	for {
		c, ok := prev.acceptQueued()
		if !ok {
			break
		}
		d.serve(c)
	}
	prev.Close() // acceptLoop moves to ln
	return nil
}

// listening reports whether something accepts connections on the unix
// socket at path (a bare connect, as layout's liveness check: package
// net's Dial would link its resolver into the daemon).
func listening(path string) bool {
	fd, err := fsx.UnixSocket()
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	if syscall.SetNonblock(fd, true) != nil {
		return false
	}
	return syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}) == nil
}

// poller is the watch without inotify: a look every pollEvery. Its ticker
// starts at the first wait, so a watch that has inotify never runs one.
type poller struct {
	t     *time.Ticker // owned by watchLoop
	woken chan struct{}
}

func newPoller() poller { return poller{woken: make(chan struct{}, 1)} }

func (p *poller) next(timeout time.Duration) bool {
	if p.t == nil {
		p.t = time.NewTicker(pollEvery)
	}
	var limit <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		limit = t.C
	}
	select {
	case <-p.t.C:
		return true
	case <-limit:
	case <-p.woken:
	}
	return false
}

func (p *poller) wake() {
	select {
	case p.woken <- struct{}{}:
	default:
	}
}

func (p *poller) stop() {
	if p.t != nil {
		p.t.Stop()
	}
}
