package reconcile

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/leftovers"
	"github.com/ptyorg/pty/pkg/lifecycle"
)

// errStale means the session changed since the pass saw it: replaced,
// edited, removed, or (for a finished one) started again.
var errStale = errors.New("changed meanwhile")

// skipReason turns an action's error into the short reason gc prints.
func skipReason(err error) string {
	switch {
	case errors.Is(err, errStale):
		return "stale"
	case errors.Is(err, layout.ErrLockBusy):
		return "busy"
	case errors.Is(err, errRepublishing):
		return "republishing"
	}
	return ""
}

// removeDead removes a finished session's files under its locks, after
// checking it is still exactly what the pass saw and its daemon is still
// dead. events are appended first (they vanish with the log, but anyone
// following it sees them).
func (p *pass) removeDead(e *entry, evs ...layout.Event) error {
	if err := p.stopLeftovers(e); err != nil {
		return err
	}
	if e.lingering() {
		// Its daemon needs the locks for its last step (its own reap
		// policy), so it is waited for before they are taken.
		if !waitDead(p.o.Root, e.id, e.meta.Generation, e.pid, p.o.StopTimeout) {
			return fmt.Errorf("the daemon (pid %d) of the exited session is still shutting down after %v", e.pid, p.o.StopTimeout)
		}
	}
	return layout.At(p.o.Root).Locked(e.id, lockWait, func() error {
		if _, ok := unchanged(p.o.Root, e); !ok {
			if e.lingering() {
				if _, err := readMeta(p.o.Root, e.id); errors.Is(err, os.ErrNotExist) {
					return nil // its daemon applied its own reap policy
				}
			}
			return errStale
		}
		if alive, _ := layout.At(p.o.Root).DaemonAlive(e.id, ""); alive {
			return errStale
		}
		if len(evs) > 0 {
			if err := layout.AppendEventsLocked(p.o.Root, e.id, evs...); err != nil {
				return err
			}
		}
		return layout.At(p.o.Root).Remove(e.id)
	})
}

// stopAndRemove ends a session whatever its state and removes it. Under
// the locks it re-checks the session and appends evs; then, without the
// locks (the daemon needs them to record its exit), it stops it the way
// `pty kill` does: SIGTERM to the daemon, which stops its process tree,
// then TERM and KILL to whatever the session started that outlived it.
// Finally it re-locks, checks the record is still the same generation, and
// removes the files. The returned reason uses upstream's words: "busy",
// "stale", "signal-failed" or "shutdown-timeout", then ", before
// signalling" or ", after signalling".
func (p *pass) stopAndRemove(e *entry, evs ...layout.Event) (string, error) {
	root := p.o.Root
	if !e.alive {
		if err := p.stopLeftovers(e); err != nil {
			return phaseReason(err, "before signalling"), err
		}
	}
	var target layout.Session
	err := layout.At(root).Locked(e.id, lockWait, func() error {
		cur, ok := unchanged(root, e)
		if !ok {
			return errStale
		}
		if len(evs) > 0 {
			if err := layout.AppendEventsLocked(root, e.id, evs...); err != nil {
				return err
			}
		}
		alive, dpid := layout.At(root).DaemonAlive(e.id, cur.Generation)
		if !alive {
			if e.alive {
				// It died since the scan: it may have left processes,
				// which the next pass (seeing it dead) stops.
				return errStale
			}
			return layout.At(root).Remove(e.id)
		}
		if dpid <= 0 {
			return fmt.Errorf("%w: the daemon answers on its socket but has no pid file", errSignal)
		}
		target = layout.Session{ID: e.id, Meta: cur, Status: layout.StatusOf(cur, true), Live: true, Pid: dpid}
		return nil
	})
	if err != nil {
		return phaseReason(err, "before signalling"), err
	}
	if target.Pid == 0 {
		return "", nil // it was already dead and is removed
	}
	if target.Status == layout.Running {
		// KeepStrategy: the record is about to go, and rewriting it now
		// would only make our own re-check below see an edit.
		res, err := lifecycle.Kill(root, target, lifecycle.KillOptions{KeepStrategy: true, Wait: p.o.StopTimeout})
		if err != nil && !errors.Is(err, client.ErrNotRunning) {
			if lifecycle.VerifyDaemon(target.Pid, root, e.id, target.Meta.Generation) {
				return "shutdown-timeout, after signalling", err
			}
			return "signal-failed, before signalling", err
		}
		if len(res.Survivors) > 0 {
			return "shutdown-timeout, after signalling", fmt.Errorf("processes %s outlived the session", lifecycle.FormatPids(res.Survivors))
		}
	}
	// An exited daemon is already shutting down on its own; a killed one
	// is gone. Either way wait for the pid, bounded.
	if !waitDead(root, e.id, target.Meta.Generation, target.Pid, p.o.StopTimeout) {
		return "shutdown-timeout, after signalling", fmt.Errorf("daemon pid %d is still running after %v", target.Pid, p.o.StopTimeout)
	}
	err = layout.At(root).Locked(e.id, lockWait, func() error {
		m, err := readMeta(root, e.id)
		if errors.Is(err, os.ErrNotExist) {
			// It reaped itself (ephemeral). Anything left is debris's
			// business: a socket here now may be a new session's.
			return nil
		}
		if err == nil && !sameGeneration(m, e) {
			return errStale
		}
		if alive, _ := layout.At(root).DaemonAlive(e.id, ""); alive {
			return errStale // a new daemon took the id meanwhile
		}
		return layout.At(root).Remove(e.id)
	})
	if err != nil {
		return phaseReason(err, "after signalling"), err
	}
	return "", nil
}

// errSignal marks a failure to signal the daemon.
var errSignal = errors.New("signal-failed")

func phaseReason(err error, phase string) string {
	r := skipReason(err)
	switch {
	case r != "":
	case errors.Is(err, errSignal):
		r = "signal-failed"
	default:
		r = "error"
	}
	return r + ", " + phase
}

// waitDead polls until pid is no longer the session's daemon (a zombie,
// or a pid reused meanwhile, counts as gone) or timeout. The daemon is not
// our child, so there is nothing to wait(2) on.
func waitDead(root, id, gen string, pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for lifecycle.VerifyDaemon(pid, root, id, gen) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
	return true
}

// stopLeftovers stops what a session whose daemon died without an exit
// record (vanished) left running, before its record goes: once the record
// is gone nothing names those processes any more. A session that exited
// normally is left alone: its daemon applied its own shutdown, and
// whatever it let run on (a nohup'd job) was meant to.
func (p *pass) stopLeftovers(e *entry) error {
	if e.alive || e.meta.Exited() || e.meta.Generation == "" {
		return nil
	}
	if err := p.republishing(e); err != nil {
		return err
	}
	if !p.leftoversRead {
		p.leftoversRead = true
		p.leftovers, _ = leftovers.Scan()
	}
	if len(p.leftovers.For(p.o.Root, e.id, e.meta)) == 0 {
		return nil
	}
	res, err := leftovers.Stop(p.o.Root, e.id, e.meta)
	if err != nil {
		return err
	}
	if res.Stopped > 0 {
		p.emit(Action{Kind: KindLeftovers, ID: e.id, Reason: "daemon-gone",
			Message: fmt.Sprintf("Stopped leftovers: %s (daemon was gone; %d %s)", e.id, res.Stopped, plural(res.Stopped, "process", "processes"))})
	}
	if len(res.Survivors) > 0 {
		return fmt.Errorf("leftover processes %s of its crashed daemon survived TERM and KILL", lifecycle.FormatPids(res.Survivors))
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
