package fsx

import (
	"errors"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/proc"
)

// ErrLockBusy is returned when a lock is held by a live process and the
// caller's wait ran out.
var ErrLockBusy = errors.New("lock is busy")

// Lock is a held lock file. The file holds the owner's pid in decimal, the
// same format the original pty writes, so both implementations exclude each
// other.
type Lock struct {
	path    string
	content string
}

// AcquireLock takes the lock at path, waiting up to wait for a live holder
// to release it (0 means try once). A lock whose holder is dead (or whose
// pid now belongs to a process that started after the lock was taken), or
// whose content is not a pid, is stale and reclaimed. checkDir, when not
// nil, is asked first about the lock's directory: pty passes
// rootdir.CheckPerms, because every change to a root takes a lock
// first, and refusing there keeps every writer out of a root that is not
// the caller's.
func AcquireLock(path string, wait time.Duration, checkDir func(dir string) error) (*Lock, error) {
	if checkDir != nil {
		if err := checkDir(filepath.Dir(path)); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(wait)
	for {
		l, err := tryLock(path)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrLockBusy) {
			return nil, err
		}
		if reclaimed, rerr := reclaimStale(path); rerr != nil {
			return nil, rerr
		} else if reclaimed {
			continue
		}
		if !time.Now().Before(deadline) {
			return nil, errs.Text(path+": "+ErrLockBusy.Error()+" (held by pid "+strings.TrimSpace(readSmall(path))+")", ErrLockBusy)
		}
		waitReleased(path, deadline)
	}
}

// waitReleased returns soon after path disappears, or after a while (so the
// caller re-checks staleness), or at the deadline. Every waiter polls with a
// cheap stat at the same short interval: with a backoff that grows per
// waiter, long waiters look rarely while newcomers look often, so under
// steady contention (20 processes tagging one session) a long waiter could
// lose every race until its deadline. Equal intervals make each release a
// fair draw among all waiters.
func waitReleased(path string, deadline time.Time) {
	until := time.Now().Add(50 * time.Millisecond)
	if deadline.Before(until) {
		until = deadline
	}
	for time.Now().Before(until) {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(500*time.Microsecond + time.Duration(mrand.Int64N(int64(time.Millisecond))))
	}
}

// tryLock publishes a fully written pid file with link(2), which fails if the
// name exists: the lock is exclusive like O_CREAT|O_EXCL, but nobody can
// ever observe it empty, so "garbage content" really is garbage.
func tryLock(path string) (*Lock, error) {
	content := strconv.Itoa(os.Getpid())
	tmp := TempName(path)
	// Removed whatever happens, a failed write included: on a full disk
	// the create succeeds and the write does not, and every failed
	// attempt would leave an empty temporary file behind.
	defer os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, errs.Wrap("lock "+path, err)
	}
	_, err = f.Write([]byte(content))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, errs.Wrap("lock "+path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, ErrLockBusy
		}
		return nil, errs.Wrap("lock "+path, err)
	}
	return &Lock{path: path, content: content}, nil
}

// reclaimStale removes path if its holder is dead or its content is garbage.
// Every removal of a lock file (a reclaim here, a release by its owner)
// happens under an flock on the directory, so between our re-check and our
// unlink nobody can remove the stale file and publish a fresh one in its
// place: we can only ever unlink the file we judged stale. Creating a lock
// needs no flock, since link(2) cannot replace an existing name.
func reclaimStale(path string) (bool, error) {
	if !lockIsStale(path) {
		return false, nil
	}
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return false, errs.Wrap("lock "+path, err)
	}
	defer unlock()
	if !lockIsStale(path) {
		return false, nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, errs.Wrap("reclaim stale lock "+path, err)
	}
	return true, nil
}

func lockDir(dir string) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		d.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		d.Close()
	}, nil
}

// lockIsStale reads the content and the age from one open file, so both
// describe the same lock even if it is released and re-created meanwhile;
// a lock that cannot be opened is free, not stale.
func lockIsStale(path string) bool {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		// Neither pty writes a link as a lock: it is garbage, and
		// removing it (never its target) frees the lock.
		return errors.Is(err, ErrSymlink)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	b := make([]byte, 64)
	n, _ := f.Read(b)
	s := strings.TrimSpace(string(b[:n]))
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		// The original pty writes its pid after O_EXCL creation, so give
		// an empty file a moment before calling it garbage.
		return s != "" || time.Since(fi.ModTime()) > time.Second
	}
	return !proc.AliveSince(pid, fi.ModTime())
}

func readSmall(path string) string {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.Read(b)
	return string(b[:n])
}

// Release removes the lock, but only if it is still ours: a lock reclaimed
// from us as stale (we were presumed dead) belongs to someone else now.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	unlock, err := lockDir(filepath.Dir(l.path))
	if err != nil {
		return errs.Wrap("release "+l.path, err)
	}
	defer unlock()
	if strings.TrimSpace(readSmall(l.path)) != l.content {
		return nil
	}
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return errs.Wrap("release "+l.path, err)
	}
	return nil
}
