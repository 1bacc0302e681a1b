// Package lifecycle stops and removes sessions: the shared core of
// `pty kill`, `pty rm` and `pty restart`. Stopping means the daemon and
// everything the session started, verified; removing means deleting the
// record only once its daemon is gone, so a new session with the same id
// can never lose its socket to the old daemon's cleanup.
package lifecycle

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/procs"
)

// DaemonWait is how long kill and rm wait for a daemon to exit. The daemon
// gives the session's processes 1 s after the hangup and 1.5 s after TERM,
// and exits within ~5 s.
const DaemonWait = 7 * time.Second

// Escalation timing for processes that outlive the daemon.
const (
	termGrace = 1 * time.Second
	killGrace = 1 * time.Second
)

// NotRunningError tells the user what to do with a stopped session. It
// matches quick.ErrNotRunning, as a session whose socket does not answer
// does.
func NotRunningError(id string) error {
	return &msgErr{fmt.Sprintf("Session %q is not running. Use \"pty rm %s\" to remove it.", id, id), quick.ErrNotRunning}
}

type msgErr struct {
	msg string
	is  error
}

func (e *msgErr) Error() string { return e.msg }
func (e *msgErr) Unwrap() error { return e.is }

// Sentence: each message begins with the session it is about, so commands
// print it without "pty: " (cli.Message).
func (e *msgErr) Sentence() bool { return true }

// KillResult says what a kill achieved.
type KillResult struct {
	DaemonPid int
	// Escalated is true when processes outlived the daemon and had to be
	// signalled by us.
	Escalated bool
	// Survivors are the session's processes still alive at the end; a
	// kill with survivors has stopped the daemon but not the session.
	Survivors []int
	// DaemonGone: the daemon had already died without stopping the
	// session (a crash, SIGKILL); Leftovers counts the processes it left
	// that kill stopped.
	DaemonGone bool
	Leftovers  int
}

// KillOptions tune Kill; the zero value is what `pty kill` does.
type KillOptions struct {
	// KeepStrategy leaves a permanent session's strategy tag alone, for
	// callers that remove the record right after (gc's orphan reaping).
	// Otherwise the tag is removed first, so gc does not bring the
	// session back.
	KeepStrategy bool
	// Wait overrides DaemonWait.
	Wait time.Duration
}

// Kill stops a running session and everything it started, and verifies
// it: the daemon's descendants are snapshotted (with start tokens) before
// the daemon gets SIGTERM (on which it hangs the session up, then TERMs and
// KILLs what is left: pkg/daemon), and whatever is still the same process
// once the daemon is gone is signalled by process group, TERM then KILL.
// A session whose command has exited but whose daemon still serves its
// grace period has that ended (endGrace) and is reported not running. The record
// stays (the daemon records the exit), except for ephemeral sessions,
// whose daemon removes them.
//
// The daemon is signalled only once its pid proves to be this session's
// daemon (layout.Registry.VerifyDaemon). A session whose daemon died without an
// exit record (vanished) may have left processes running: those are
// stopped instead (pkg/leftovers), and it is an error only if there were
// none.
func Kill(root string, s layout.Session, o KillOptions) (KillResult, error) {
	var res KillResult
	if s.Shown() == layout.Vanished {
		return killLeftovers(root, s)
	}
	if s.Shown() == layout.Exited {
		if err := endGrace(root, s, o.Wait); err != nil {
			return res, err
		}
		return res, NotRunningError(s.ID)
	}
	if s.Shown() != layout.Running {
		return res, NotRunningError(s.ID)
	}
	pid := s.Pid
	gen := s.Meta.Generation
	if pid <= 0 && !VerifyDaemon(s.Meta.DaemonPid, root, s.ID, gen) {
		// Its socket answers, but nothing says which process serves it.
		return res, errs.Sentence(fmt.Sprintf("Session %q has no daemon pid to signal (no %s.pid file); it may belong to another pty version: stop it from inside, or remove the socket %s", s.ID, s.ID, layout.At(root).Paths(s.ID).Sock()), nil)
	}
	if pid <= 0 {
		pid = s.Meta.DaemonPid
	}
	if !VerifyDaemon(pid, root, s.ID, gen) {
		// It died since its status was read (its pid may be someone
		// else's by now).
		s.Status, s.Live, s.Pid = layout.Vanished, false, 0
		return killLeftovers(root, s)
	}
	res.DaemonPid = pid

	if !o.KeepStrategy && s.Meta.Tags[layout.TagStrategy] != "" {
		if err := DropStrategy(root, s.ID); err != nil {
			return res, err
		}
	}

	snap, err := procs.Tree(pid)
	if errors.Is(err, procs.ErrUnsupported) {
		// No process table: stop the daemon, unverified.
		return res, killDaemonOnly(root, s.ID, gen, pid, o.Wait)
	}
	if err != nil {
		return res, fmt.Errorf("kill %s: snapshot processes: %w", s.ID, err)
	}
	if len(snap) == 0 {
		// The daemon exited between the status check and the snapshot.
		return res, nil
	}
	daemon, desc := snap[0], procs.Prune(snap[1:], otherDaemon)

	err = procs.SignalIf(pid, syscall.SIGTERM, func() bool {
		return procs.Still(daemon) && VerifyDaemon(pid, root, s.ID, gen)
	})
	if err != nil && !errors.Is(err, syscall.ESRCH) && !errors.Is(err, procs.ErrNotSame) {
		return res, fmt.Errorf("Failed to kill session %q: signal daemon PID %d: %v", s.ID, pid, err)
	}
	wait := o.Wait
	if wait <= 0 {
		wait = DaemonWait
	}
	if !WaitGone(daemon, wait) {
		return res, fmt.Errorf("Failed to kill session %q: daemon PID %d is still running after %v.", s.ID, pid, wait)
	}
	cleanStale(root, s.ID, pid)
	// A daemon killed before it took over its launcher's claim leaves
	// the claim with no holder: drop it, or the id stays in use.
	registry.DropLaunchClaim(root, s.ID, gen)
	if len(desc) == 0 {
		recordStopped(root, s.ID, gen)
	}

	if left := procs.Survivors(desc); len(left) > 0 {
		res.Escalated = true
		procs.Signal(desc, syscall.SIGTERM, daemon.Pgid)
		if !procs.WaitGone(desc, termGrace) {
			procs.Signal(desc, syscall.SIGKILL, daemon.Pgid)
			procs.WaitGone(desc, killGrace)
		}
	}
	res.Survivors = procs.Pids(procs.Survivors(desc))
	if len(res.Survivors) > 0 {
		// Leave a trace for whoever reads the log later; the record may
		// be gone (ephemeral), and then there is nowhere to write it.
		if _, err := os.Stat(layout.At(root).Paths(s.ID).Meta()); err == nil {
			layout.At(root).AppendEvents(s.ID, layout.NewEvent(s.ID, layout.EventDescendantsSurvived,
				"data", map[string]any{"pids": res.Survivors}))
		}
	}
	return res, nil
}

// recordStopped records the exit of a session whose daemon died of the
// SIGTERM without recording it, as the daemon records a stop: a daemon
// just started by run -d handles stops only once its runtime is up, and
// until then it has started nothing (its command comes after). A record
// that already has an exit, or is of another generation now, is left as
// it is.
func recordStopped(root, id, gen string) {
	code, sig := 128+int(syscall.SIGTERM), int(syscall.SIGTERM)
	m, err := layout.At(root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		if m.Exited() || m.Generation != gen {
			return nil, layout.ErrNoChange
		}
		m.ExitCode, m.Signal, m.ExitedAt, m.Killed = &code, &sig, layout.Now(), true
		return []layout.Event{layout.NewEvent(id, layout.EventSessionExit, "exitCode", code, "signal", sig)}, nil
	})
	if err != nil || !m.Ephemeral {
		return
	}
	if layout.Keep(m.Tags) {
		return
	}
	layout.At(root).Locked(id, layout.MetaLockWait, func() error {
		if m, err := layout.At(root).Metadata(id); err == nil && m.Generation == gen {
			p := layout.At(root).Paths(id)
			os.Remove(p.Meta())
			os.Remove(p.Events())
			os.Remove(p.DaemonLog())
			os.Remove(p.DaemonLogOld())
		}
		return nil
	})
}

// endGrace stops the daemon of a session whose command has exited but
// which still serves its final screen for a grace period, and waits for it
// to be gone, so that kill never returns with the session's socket still
// there. The daemon keeps the record (with the exit), as for any stop.
// Like every signal kill sends, it goes only to a pid that proves to be
// this session's daemon.
func endGrace(root string, s layout.Session, wait time.Duration) error {
	pid, gen := s.Pid, s.Meta.Generation
	if pid <= 0 || !VerifyDaemon(pid, root, s.ID, gen) {
		return nil
	}
	return killDaemonOnly(root, s.ID, gen, pid, wait)
}

// killLeftovers is Kill for a session whose daemon is gone.
func killLeftovers(root string, s layout.Session) (KillResult, error) {
	res := KillResult{DaemonGone: true}
	if m, err := layout.At(root).Metadata(s.ID); err == nil && (m.Exited() || m.Generation != s.Meta.Generation) {
		// It exited normally meanwhile (what it let run on was meant to),
		// or was replaced.
		return res, NotRunningError(s.ID)
	}
	lr, err := leftovers.Stop(root, s.ID, s.Meta)
	if err != nil {
		return res, err
	}
	res.Leftovers, res.Survivors = lr.Stopped, lr.Survivors
	if lr.Stopped == 0 && len(lr.Survivors) == 0 {
		return res, NotRunningError(s.ID)
	}
	return res, nil
}

// otherDaemon picks out a session daemon among a daemon's descendants: a
// session started from inside this one (its daemon is reparented to ours,
// a subreaper) is a session of its own, not this one's to stop.
func otherDaemon(p procs.Proc) bool {
	args, err := procs.Cmdline(p.Pid)
	return err == nil && len(args) > 0 && filepath.Base(args[0]) == layout.DaemonName
}

// VerifyDaemon reports whether pid is, provably, the daemon of session id
// in root (of generation gen, when not ""): layout.Registry.VerifyDaemon.
func VerifyDaemon(pid int, root, id, gen string) bool {
	return layout.At(root).VerifyDaemon(pid, id, gen)
}

func killDaemonOnly(root, id, gen string, pid int, wait time.Duration) error {
	if wait <= 0 {
		wait = DaemonWait
	}
	err := procs.SignalIf(pid, syscall.SIGTERM, func() bool { return VerifyDaemon(pid, root, id, gen) })
	if err != nil && !errors.Is(err, syscall.ESRCH) && !errors.Is(err, procs.ErrNotSame) {
		return fmt.Errorf("Failed to kill session %q: signal daemon PID %d: %v", id, pid, err)
	}
	deadline := time.Now().Add(wait)
	for VerifyDaemon(pid, root, id, gen) {
		if time.Now().After(deadline) {
			return fmt.Errorf("Failed to kill session %q: daemon PID %d is still running after %v.", id, pid, wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// DropStrategy removes the strategy tag (and so permanence) from a
// session, recording a tags_change event.
func DropStrategy(root, id string) error {
	_, err := layout.At(root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		if _, ok := m.Tags[layout.TagStrategy]; !ok {
			return nil, layout.ErrNoChange
		}
		prev := maps.Clone(m.Tags)
		delete(m.Tags, layout.TagStrategy)
		value := maps.Clone(m.Tags)
		if len(m.Tags) == 0 {
			m.Tags = nil
			value = map[string]string{}
		}
		return []layout.Event{layout.NewEvent(id, layout.EventTagsChange, "previous", prev, "value", value)}, nil
	})
	if err != nil {
		return fmt.Errorf("remove strategy tag from %s: %w", id, err)
	}
	return nil
}

// WaitGone polls, with backoff, until p is no longer the same live
// process, up to timeout. A zombie counts as gone.
func WaitGone(p procs.Proc, timeout time.Duration) bool {
	return procs.WaitGone([]procs.Proc{p}, timeout)
}

// cleanStale removes the socket and pid file a dead daemon failed to
// remove (it crashed mid-shutdown), but only while the pid file still
// names that daemon: if a new session already took the id they are its.
func cleanStale(root, id string, pid int) {
	if layout.At(root).Pid(id) != pid {
		return
	}
	layout.At(root).Locked(id, layout.MetaLockWait, func() error {
		if layout.At(root).Pid(id) != pid {
			return nil
		}
		p := layout.At(root).Paths(id)
		os.Remove(p.Sock())
		os.Remove(p.Pid())
		return nil
	})
}

// FormatPids joins pids for messages.
func FormatPids(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, " ")
}
