package layout

import (
	"errors"
	"os"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
)

// MetaLockWait is how long a metadata change waits for a busy lock. Changes
// hold it for a read, a small edit and a write, so a long wait means a
// stuck or very slow writer.
const MetaLockWait = 30 * time.Second

// ErrNoChange, returned by an Update callback, means nothing changed: no
// write happens and no event is appended.
var ErrNoChange = errors.New("no change")

// updateRecord is the one way to change a session's metadata. It takes the event
// lock and then the metadata lock (the fixed order that rules out deadlock),
// reads the file, lets fn change it, writes it atomically and appends the
// events fn returns, all before releasing. Holding the metadata lock across
// read, change and write is what keeps concurrent writers from losing each
// other's updates. It returns the metadata after the change (or as it was,
// when fn returned ErrNoChange). The events' payloads hold plain values
// only (see AppendEvents).
func updateRecord(root, id string, fn func(m *Metadata) ([]Event, error)) (*Metadata, error) {
	return update(root, id, nil, fn)
}

func update(root, id string, other func(any) ([]byte, error), fn func(m *Metadata) ([]Event, error)) (*Metadata, error) {
	p := pathsFor(root, id)
	el, err := acquireLock(p.EventsLock(), eventLockWait)
	if err != nil {
		return nil, errs.Wrap("update "+id, err)
	}
	defer el.Release()
	ml, err := acquireLock(p.Lock(), MetaLockWait)
	if err != nil {
		return nil, errs.Wrap("update "+id, err)
	}
	defer ml.Release()
	m, orig, err := readMetadataBytes(root, id)
	if err != nil {
		return nil, err
	}
	evs, err := fn(m)
	if errors.Is(err, ErrNoChange) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	// A change whose event cannot be logged is not made: what can be
	// checked is checked before the record changes, and an append that
	// fails after it (a full disk) puts the record back as it was. The
	// record is written first so that a follower who sees the event
	// reads the change.
	buf, err := encodeEvents(evs, other)
	if err != nil {
		return nil, err
	}
	if len(evs) > 0 {
		if fi, err := os.Lstat(p.Events()); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, errs.Text(p.Events()+" "+ErrSymlink.Error(), ErrSymlink)
		}
	}
	if err := writeMetadata(root, id, m, true); err != nil {
		return nil, err
	}
	if err := appendEncodedLocked(root, id, buf); err != nil {
		if rerr := fsx.WriteFileAtomic(p.Meta(), orig, 0o600); rerr != nil {
			return nil, errs.Wrap(err.Error()+"; and the change could not be undone", rerr)
		}
		return nil, err
	}
	return m, nil
}

// locked runs fn while holding both of a session's locks, for callers that
// must re-check and act atomically (gc, rm, respawn) without the
// read-change-write shape of Update.
func locked(root, id string, wait time.Duration, fn func() error) error {
	p := pathsFor(root, id)
	el, err := acquireLock(p.EventsLock(), wait)
	if err != nil {
		return err
	}
	defer el.Release()
	ml, err := acquireLock(p.Lock(), wait)
	if err != nil {
		return err
	}
	defer ml.Release()
	return fn()
}
