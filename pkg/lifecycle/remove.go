package lifecycle

import (
	"errors"
	"fmt"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
	"github.com/ptyorg/pty/pkg/spawn"
)

// RunningError tells the user to stop a session before removing it. It
// matches spawn.ErrRunning, as starting a running session does.
func RunningError(id string) error {
	return &msgErr{fmt.Sprintf("Session %q is running. Stop it first with \"pty kill %s\".", id, id), spawn.ErrRunning}
}

// Remove deletes a stopped session's files (.sock, .pid, .json,
// .events.jsonl). It returns only after the session's old daemon has
// finished shutting down, and removes under both session locks after
// checking the record is still the one the caller saw: a `pty run --id`
// of the same id that follows, or that slipped in meanwhile, keeps its
// files.
func Remove(root string, s layout.Session, wait time.Duration) error {
	if s.Shown() == layout.Running {
		return RunningError(s.ID)
	}
	if wait <= 0 {
		wait = DaemonWait
	}
	if err := waitDaemonGone(root, s.ID, s.Meta.Generation, wait); err != nil {
		return errs.Sentence(err.Error()+"; not removed.", err)
	}
	return layout.At(root).Locked(s.ID, layout.MetaLockWait, func() error {
		m, err := layout.At(root).Metadata(s.ID)
		switch {
		case errors.Is(err, layout.ErrNotFound):
			// Already removed (an ephemeral daemon's own cleanup, or a
			// concurrent rm); sweep whatever is left unless a live
			// daemon owns it.
			if alive, _ := layout.At(root).DaemonAlive(s.ID, ""); alive {
				return replacedError(s.ID)
			}
		case err != nil:
			// Unreadable metadata is still this record's: removing it is
			// what the user asked for.
		case !sameRecord(s.Meta, m):
			return replacedError(s.ID)
		}
		if alive, _ := layout.At(root).DaemonAlive(s.ID, ""); err == nil && layout.StatusOf(m, alive) == layout.Running {
			return replacedError(s.ID)
		}
		if err := layout.At(root).Remove(s.ID); err != nil {
			return fmt.Errorf("remove session %s: %w", s.ID, err)
		}
		return nil
	})
}

func replacedError(id string) error {
	return &msgErr{fmt.Sprintf("Session %q was replaced by a new session while waiting; not removed.", id), spawn.ErrReplaced}
}

// sameRecord tells whether cur is the record seen as old, allowing for the
// exit fields a shutting-down daemon writes. Records of the original pty
// may lack a generation; their creation time and daemon pid identify them.
func sameRecord(old, cur *layout.Metadata) bool {
	if old.Generation != "" || cur.Generation != "" {
		return old.Generation == cur.Generation
	}
	return old.CreatedAt == cur.CreatedAt && old.Command == cur.Command
}

// waitDaemonGone waits for an exited session's daemon to finish: it
// lingers briefly to flush and clean up, and that cleanup must not run
// after a removal or a new daemon's start on the same id.
func waitDaemonGone(root, id, gen string, wait time.Duration) error {
	if pid := layout.At(root).Pid(id); pid > 0 {
		// A foreign process under a reused pid is not ours to wait for.
		if p, ok := procs.Lookup(pid); ok && !p.Zombie && VerifyDaemon(pid, root, id, gen) {
			if !WaitGone(p, wait) {
				return errs.Sentence(fmt.Sprintf("Session %q: daemon did not exit within %v", id, wait), nil)
			}
		}
	}
	return nil
}
