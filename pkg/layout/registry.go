package layout

import (
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/pkg/procs"
)

// Status is derived from the files and the processes, never stored, by
// one rule (StatusOf) that every command shares.
type Status string

const (
	// Running: the daemon is alive and no exit is recorded.
	Running Status = "running"
	// Exiting: an exit is recorded and the daemon still lingers in its
	// grace period, serving the final screen. The session is ended for
	// every purpose (gc respawns or sweeps it, attach -r restarts it,
	// kill ends the grace); listings show it as exited.
	Exiting Status = "exiting"
	// Exited: an exit is recorded and the daemon is gone.
	Exited Status = "exited"
	// Vanished: the daemon is gone with no exit record: SIGKILL, OOM, a
	// crash.
	Vanished Status = "vanished"
	// Damaged: the record cannot be used (Session.Damaged says why);
	// only its daemon is known (Session.Live, Session.Pid).
	Damaged Status = "damaged"
)

// Gone reports whether a session's command has stopped, cleanly or not
// (exiting, exited or vanished).
func (s Status) Gone() bool { return s == Exiting || s == Exited || s == Vanished }

// Ended reports whether an exit is recorded (exiting or exited).
func (s Status) Ended() bool { return s == Exiting || s == Exited }

// Session is one registry entry as read at one moment.
type Session struct {
	ID     string
	Meta   *Metadata
	Status Status
	// Live says the session's daemon is alive (running, exiting, or a
	// damaged record's daemon).
	Live bool
	// Pid is the daemon's pid while it is alive and known (0 when a
	// daemon answers on its socket but names no pid).
	Pid int
	// Damaged says why the record (<id>.json) cannot be used, or is "";
	// the status is then Damaged. A damaged session has an empty Meta:
	// it is listed so it can be seen, stopped through its daemon's pid
	// and removed, but not otherwise used.
	Damaged string
}

// Shown is the status as pty's public formats show it (list, --json,
// --status, the web API, the original pty's readers): running, exited
// or vanished. An exiting session shows as exited; a damaged one as
// running while its daemon lives, else vanished.
func (s Session) Shown() Status {
	switch s.Status {
	case Exiting:
		return Exited
	case Damaged:
		if s.Live {
			return Running
		}
		return Vanished
	}
	return s.Status
}

// DamagedErr is the error to report for a damaged session when the
// caller needed its record, or nil.
func (s Session) DamagedErr() error {
	if s.Damaged == "" {
		return nil
	}
	return &DamagedError{ID: s.ID, Reason: s.Damaged}
}

func damagedSession(root, id, reason string, alive bool, pid int) Session {
	s := Session{ID: id, Meta: &Metadata{}, Status: Damaged, Live: alive, Damaged: reason}
	if alive {
		s.Pid = pid
		if pid <= 0 {
			// No pid file, and no record to hold daemonPid: ask the
			// socket who listens, so kill can still stop it. The answer
			// counts only if it is this session's daemon: the launcher
			// listens first (spawn's claim), so a connection queued
			// before the daemon listens again names the launcher, which
			// may have exited and its pid gone to another process.
			if p := socketPeerPid(pathsFor(root, id).Sock()); daemonPidAlive(p, root, id, "") {
				s.Pid = p
			}
		}
	}
	return s
}

// Name is the display name, or the id.
func (s Session) Name() string { return s.Meta.Name(s.ID) }

// daemonFilesDenied reports whether the session's pid file or socket
// exists but the caller may not use it: the daemon is another user's.
func daemonFilesDenied(root, id string) bool {
	p := pathsFor(root, id)
	if _, err := readFileNoFollow(p.Pid()); errors.Is(err, syscall.EACCES) {
		return true
	}
	return syscall.Access(p.Sock(), 2) == syscall.EACCES
}

// readPid returns the pid in <id>.pid, or 0.
func readPid(root, id string) int {
	b, err := readFileNoFollow(pathsFor(root, id).Pid())
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// DaemonName is a session daemon's process name (/proc/<pid>/comm) and
// the first word of its arguments (see identity.go).
const DaemonName = "pty-daemon"

// daemonPidAlive reports whether pid is the live daemon of session id in
// root, of generation gen when gen is not "" (see identity.go): a pid file
// outlives its daemon after a crash or a reboot, and its pid may since
// belong to anything, another session's daemon included. Without /proc
// the process cannot be identified and kill(pid, 0) decides.
func daemonPidAlive(pid int, root, id, gen string) bool {
	switch identifyDaemon(pid, root, id, gen) {
	case isDaemon, unverifiable:
		return true
	}
	return false
}

// daemonAlive reports whether a session's daemon is alive and its pid. The
// pid file answers without a socket round trip; only when there is no pid
// file do we try the socket, as the original pty did. Any generation
// counts: callers asking whether the id is taken.
func daemonAlive(root, id string) (bool, int) {
	return daemonAliveGen(root, id, "")
}

// daemonAliveGen is DaemonAlive for the record of generation gen: a live
// daemon of another generation (a replacement starting) is not its daemon.
func daemonAliveGen(root, id, gen string) (bool, int) {
	p := pathsFor(root, id)
	if pid := readPid(root, id); pid > 0 {
		return daemonPidAlive(pid, root, id, gen), pid
	}
	if _, err := os.Lstat(p.Sock()); err != nil {
		return false, 0
	}
	return socketDaemonAlive(root, id, gen, p.Sock()), 0
}

// socketDaemonAlive is the socket's word on whether session id's daemon
// lives, for a session that left no pid file: something must accept a
// connection there and, where the kernel names who listens (SO_PEERCRED),
// that must be this session's daemon, since a socket's name may be bound
// by any program once its daemon is gone. The original pty's daemon
// carries its session in its environment only; as the socket's listener
// now, its pid cannot be a reused one, so no start time is asked of it.
func socketDaemonAlive(root, id, gen, path string) bool {
	if !peerCredKnown {
		return socketAccepts(path)
	}
	pid := socketPeerPid(path)
	switch identifyDaemon(pid, root, id, gen) {
	case isDaemon, unverifiable:
		return true
	}
	if pid <= 0 {
		return false
	}
	args, err := procs.Cmdline(pid)
	return err == nil && isUpstreamDaemon(pid, args, root, id)
}

// socketAccepts reports whether something listens on the unix socket at
// path. A bare connect(2) rather than package net: net's Dial links its
// DNS resolver into every binary that uses layout, the session daemon's
// included, and costs it a quarter of a megabyte of resident memory. The
// socket is non-blocking so a full backlog fails at once instead of
// hanging, as net's dial of a unix socket does too.
func socketAccepts(path string) bool {
	syscall.ForkLock.RLock() // no exec may inherit it before it is close-on-exec
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	if syscall.SetNonblock(fd, true) != nil {
		return false
	}
	name, done, err := fsx.SocketTarget(path)
	if err != nil {
		return false
	}
	defer done()
	return syscall.Connect(fd, &syscall.SockaddrUnix{Name: name}) == nil
}

// StatusOf is the one decision of a session's status from its record and
// whether its daemon lives; every command asks it (list, gc, attach,
// kill, ...), so none can see a session differently. A recorded exit wins:
// a daemon still alive after its command exited is only lingering for its
// grace period (docs/protocol.md, Session end), serving the final screen:
// the session is Exiting, ended for every purpose: gc respawns or sweeps
// it, attach -r restarts it.
func StatusOf(m *Metadata, daemonAlive bool) Status {
	switch {
	case m.Exited() && daemonAlive:
		return Exiting
	case m.Exited():
		return Exited
	case daemonAlive:
		return Running
	default:
		return Vanished
	}
}

// load reads one session. ErrNotFound when it has no metadata; a damaged
// record gives a session with Damaged set (see Session).
func load(root, id string) (Session, error) {
	m, err := readMetadata(root, id)
	var de *DamagedError
	if errors.As(err, &de) {
		if de.denied {
			return Session{}, permissionError(root, id)
		}
		alive, pid := daemonAlive(root, id)
		return damagedSession(root, id, de.Reason, alive, pid), nil
	}
	if err != nil {
		return Session{}, err
	}
	alive, pid := daemonAliveGen(root, id, m.Generation)
	if !alive {
		pid = 0
		if !m.Exited() && daemonFilesDenied(root, id) {
			// A record another user let us read, of a daemon whose pid
			// file and socket are theirs alone: we cannot tell it is
			// alive, so calling it vanished would be a guess, and
			// usually wrong.
			return Session{}, permissionError(root, id)
		}
	}
	return Session{ID: id, Meta: m, Status: StatusOf(m, alive), Live: alive, Pid: pid}, nil
}

// idsWith lists the ids that have a file of suffix (see IDFromName),
// sorted. A missing root is an empty registry.
func idsWith(root, suffix string) ([]string, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, errs.Wrap("read pty root "+root, err)
	}
	var ids []string
	for _, e := range ents {
		if id := IDFromName(e.Name(), suffix); id != "" {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// RefError is a reference that resolved to no session or to several.
type RefError struct {
	Ref        string
	Candidates []string // ids, when ambiguous
}

func (e *RefError) Error() string {
	if len(e.Candidates) > 0 {
		return "Session reference " + strconv.Quote(e.Ref) + " is ambiguous. Matching stable session IDs: " + strings.Join(e.Candidates, ", ")
	}
	return "Session " + strconv.Quote(e.Ref) + " not found."
}

// Is lets errors.Is(err, ErrNotFound) match a reference that found nothing.
func (e *RefError) Is(target error) bool { return target == ErrNotFound && len(e.Candidates) == 0 }

// resolve finds the session a user means (see MatchRef). An exact id is
// tried first, with no directory listing.
func resolve(root, ref string) (Session, error) {
	if ValidateID(ref) == nil {
		if s, err := load(root, ref); err == nil {
			return s, nil
		} else if !errors.Is(err, ErrNotFound) {
			return Session{}, err
		}
	}
	ids, err := idsWith(root, SuffixMeta)
	if err != nil {
		return Session{}, err
	}
	match := MatchRef(ref, len(ids), func(i int) (string, string, bool) {
		m, err := readMetadata(root, ids[i])
		if err != nil || m.DisplayName == nil {
			return ids[i], "", false
		}
		return ids[i], *m.DisplayName, true
	})
	switch len(match) {
	case 0:
		return Session{}, &RefError{Ref: ref}
	case 1:
		return load(root, ids[match[0]])
	}
	cands := make([]string, len(match))
	for i, j := range match {
		cands[i] = ids[j]
	}
	return Session{}, &RefError{Ref: ref, Candidates: cands}
}

// MatchRef is the one rule by which a reference names a session, here and
// for a list of another host's sessions: of n sessions, the i-th being
// at(i) (its id, and its display name, named false when it has none), it
// tries in turn an exact id, an exact display name, a prefix of ids, a
// prefix of display names. The first step that matches decides, and its
// matches are returned (indexes, in order): one is the session meant,
// several make ref ambiguous, none is no session. The exact steps come
// first, so a session whose id or name is another's prefix stays
// reachable. Prefixes are what tmux users type for its targets; an empty
// ref is no prefix. at is called once for each session.
func MatchRef(ref string, n int, at func(i int) (id, name string, named bool)) []int {
	var names, idPrefix, namePrefix []int
	for i := range n {
		id, name, named := at(i)
		if id == ref {
			return []int{i}
		}
		if ref != "" && strings.HasPrefix(id, ref) {
			idPrefix = append(idPrefix, i)
		}
		switch {
		case !named:
		case name == ref:
			names = append(names, i)
		case ref != "" && strings.HasPrefix(name, ref):
			namePrefix = append(namePrefix, i)
		}
	}
	for _, match := range [][]int{names, idPrefix, namePrefix} {
		if len(match) > 0 {
			return match
		}
	}
	return nil
}

// removeFiles deletes a session's files (socket, pid, metadata, events,
// launch claim, the daemon's error log).
// Missing files are fine; lock files are left to their holders.
func removeFiles(root, id string) error {
	var errs []error
	for _, f := range pathsFor(root, id).All() {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
