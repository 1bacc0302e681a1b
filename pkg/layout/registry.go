package layout

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Status is derived from the files and the processes, never stored.
type Status string

const (
	Running  Status = "running"  // the daemon is alive
	Exited   Status = "exited"   // an exit was recorded
	Vanished Status = "vanished" // the daemon is gone with no exit record: SIGKILL, OOM, crash
)

// Gone reports whether a session has stopped, cleanly or not.
func (s Status) Gone() bool { return s == Exited || s == Vanished }

// Session is one registry entry as read at one moment.
type Session struct {
	ID     string
	Meta   *Metadata
	Status Status
	Pid    int // the daemon's pid when running
}

// Name is the display name, or the id.
func (s Session) Name() string { return s.Meta.Name(s.ID) }

// ReadPid returns the pid in <id>.pid, or 0.
func ReadPid(root, id string) int {
	b, err := os.ReadFile(PathsFor(root, id).Pid())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// DaemonAlive reports whether a session's daemon is alive and its pid. The
// pid file answers without a socket round trip; only when there is no pid
// file do we try the socket, as the original pty did. A live daemon whose
// pid file names a reused pid is the one case this can get wrong, and the
// socket check would not help there either.
func DaemonAlive(root, id string) (bool, int) {
	p := PathsFor(root, id)
	if pid := ReadPid(root, id); pid > 0 {
		return PidAlive(pid), pid
	}
	if _, err := os.Lstat(p.Sock()); err != nil {
		return false, 0
	}
	c, err := net.DialTimeout("unix", p.Sock(), 200*time.Millisecond)
	if err != nil {
		return false, 0
	}
	c.Close()
	return true, 0
}

// DeriveStatus computes a session's status from its metadata and daemon.
func DeriveStatus(root, id string, m *Metadata) (Status, int) {
	alive, pid := DaemonAlive(root, id)
	switch {
	case m.Exited():
		return Exited, pid
	case alive:
		return Running, pid
	default:
		return Vanished, 0
	}
}

// Load reads one session. ErrNotFound when it has no metadata.
func Load(root, id string) (Session, error) {
	m, err := ReadMetadata(root, id)
	if err != nil {
		return Session{}, err
	}
	st, pid := DeriveStatus(root, id, m)
	return Session{ID: id, Meta: m, Status: st, Pid: pid}, nil
}

// IDs lists the ids that have a metadata file, sorted. A missing root is an
// empty registry.
func IDs(root string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("read pty root %s: %w", root, err)
	}
	var ids []string
	for _, e := range ents {
		if id := SessionIDFromMetaName(e.Name()); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// List reads every session. Entries whose metadata cannot be read (being
// removed, malformed) are skipped: they are gc's debris, not sessions.
func List(root string) ([]Session, error) {
	ids, err := IDs(root)
	if err != nil {
		return nil, err
	}
	out := make([]Session, 0, len(ids))
	for _, id := range ids {
		s, err := Load(root, id)
		if err != nil {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// RefError is a reference that resolved to no session or to several.
type RefError struct {
	Ref        string
	Candidates []string // ids, when ambiguous
}

func (e *RefError) Error() string {
	if len(e.Candidates) > 0 {
		return fmt.Sprintf("Session reference %q is ambiguous. Matching stable session IDs: %s", e.Ref, strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("Session %q not found.", e.Ref)
}

// Is lets errors.Is(err, ErrNotFound) match a reference that found nothing.
func (e *RefError) Is(target error) bool { return target == ErrNotFound && len(e.Candidates) == 0 }

// Resolve finds the session a user means: an exact id wins; otherwise a
// display name that exactly one session has.
func Resolve(root, ref string) (Session, error) {
	if ValidateID(ref) == nil {
		if s, err := Load(root, ref); err == nil {
			return s, nil
		} else if !errors.Is(err, ErrNotFound) {
			return Session{}, err
		}
	}
	ids, err := IDs(root)
	if err != nil {
		return Session{}, err
	}
	var match []string
	for _, id := range ids {
		m, err := ReadMetadata(root, id)
		if err == nil && m.DisplayName != nil && *m.DisplayName == ref {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return Session{}, &RefError{Ref: ref}
	case 1:
		return Load(root, match[0])
	default:
		return Session{}, &RefError{Ref: ref, Candidates: match}
	}
}

// RemoveFiles deletes a session's files (socket, pid, metadata, events).
// Missing files are fine; lock files are left to their holders.
func RemoveFiles(root, id string) error {
	var errs []error
	for _, f := range PathsFor(root, id).All() {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
