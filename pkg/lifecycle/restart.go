package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

// scrubEnv are variables of an agent harness that must not leak from the
// restarting shell into the restarted session.
var scrubEnv = []string{"ST_AGENT", "ST_ROOT"}

// RelaunchOptions say how one relaunch differs from starting the stored
// settings as they are.
type RelaunchOptions struct {
	// Stop kills a running session first, as `pty kill` does (restart);
	// without it a running session is refused with spawn.ErrRunning.
	Stop bool
	// Env is the base environment of the new child (nil: this process's).
	// Agent variables are scrubbed from it either way.
	Env []string
	// Rows and Cols, when positive, replace the stored size: the user's
	// terminal may differ from the one the session was made in.
	Rows, Cols int
	// Launch, when set, turns the stored settings into the ones to start:
	// run -a lets its command line win, gc re-reads a pty.toml. The
	// bookkeeping, generation and environment rules apply to its result.
	Launch func(stored spawn.Options) spawn.Options
	// Bookkeeping are gc's fast-fail tags for the new session. Nil leaves
	// them cleared: a person starting a session again means to try again,
	// so the crash-loop count starts over.
	Bookkeeping map[string]string
	// MustExist refuses (spawn.ErrReplaced) when the record is gone once
	// the old daemon has finished: gc does not bring back what someone
	// removed meanwhile. Others start from the caller's copy, as an
	// ephemeral session's daemon removes its own record on the way out.
	MustExist bool
	// NameLocked says the caller holds the lock of the display name the
	// session will have (registry.NameLock: run -a --name), so Relaunch
	// takes none.
	NameLocked bool
}

// Relaunch starts session s again under its id from its stored launch
// settings (command, args, cwd, size, env policy, tags, display name,
// state). It is the one way every command does it (restart, attach -r,
// run -a, the picker, gc's respawn), so they cannot drift apart:
//
//   - a running session is stopped first (with o.Stop) or refused, and it
//     fails if anything of the old session survives;
//   - it waits for the old daemon's short shutdown, which would otherwise
//     find the id "already running" or clean up after the new session;
//   - the record is re-read (the daemon records the exit, tags may have
//     changed) and must still be the generation the caller saw: a session
//     someone else started meanwhile is never replaced (spawn.ErrReplaced);
//   - the strategy tag the caller saw is restored (Kill drops it, so gc
//     cannot respawn the session in the gap before ours starts);
//   - gc's fast-fail bookkeeping is cleared, then o.Bookkeeping set;
//   - agent variables are scrubbed from the environment.
//
// It returns the session's id once the new daemon is ready.
func Relaunch(ctx context.Context, root string, s layout.Session, o RelaunchOptions) (string, error) {
	if s.Damaged != "" {
		// Its command, cwd and settings were in the record.
		return "", errs.Sentence(fmt.Sprintf("Session %q cannot be restarted: its record is damaged (%s), so its command is unknown. Stop it with \"pty kill %s\" and remove it with \"pty rm %s\".", s.ID, s.Damaged, s.ID, s.ID), nil)
	}
	if s.Shown() == layout.Running && !o.Stop {
		return "", spawn.RunningError(s.ID)
	}
	if n := s.Meta.DisplayName; n != nil && *n != "" && !o.NameLocked {
		// From the stop to the new record, the session's record may be
		// away (an ephemeral one's daemon removes it; the start replaces
		// it): a run -a --name looking meanwhile would find the name free
		// and start a second session with it.
		l, err := registry.NameLock(root, *n, registry.NameLockWait)
		if err != nil {
			return "", fmt.Errorf("restart %s: %w", s.ID, err)
		}
		defer l.Release()
	}
	if s.Shown() == layout.Running {
		res, err := Kill(root, s, KillOptions{})
		if err != nil && !errors.Is(err, quick.ErrNotRunning) {
			return "", err
		}
		if len(res.Survivors) > 0 {
			return "", errs.Sentence(fmt.Sprintf("Session %q: processes %s survived the kill; not restarted.", s.ID, FormatPids(res.Survivors)), nil)
		}
	}
	if err := waitDaemonGone(root, s.ID, s.Meta.Generation, DaemonWait); err != nil {
		return "", errs.Sentence(err.Error()+"; not restarted.", err)
	}
	m, gen := s.Meta, ""
	cur, err := layout.At(root).Metadata(s.ID)
	switch {
	case err == nil:
		if !sameRecord(s.Meta, cur) {
			return "", replacedMeanwhile(s.ID)
		}
		m, gen = cur, cur.Generation
	case o.MustExist:
		return "", replacedMeanwhile(s.ID)
	}
	so := spawn.OptionsFromMetadata(s.ID, m)
	if v, ok := s.Meta.Tags[layout.TagStrategy]; ok {
		if so.Tags == nil {
			so.Tags = map[string]string{}
		}
		so.Tags[layout.TagStrategy] = v
	}
	if o.Launch != nil {
		so = o.Launch(so)
		so.ID = s.ID
	}
	for _, k := range layout.FastFailTags() {
		delete(so.Tags, k)
	}
	for k, v := range o.Bookkeeping {
		if so.Tags == nil {
			so.Tags = map[string]string{}
		}
		so.Tags[k] = v
	}
	if o.Rows > 0 {
		so.Rows = o.Rows
	}
	if o.Cols > 0 {
		so.Cols = o.Cols
	}
	so.Replace = true
	so.ReplaceGeneration = gen
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	so.Env = scrubbed(env)
	id, err := spawn.Start(ctx, root, so)
	if err != nil {
		return "", fmt.Errorf("restart %s: %w", s.ID, err)
	}
	return id, nil
}

func replacedMeanwhile(id string) error {
	return errs.Sentence(fmt.Sprintf("Session %q was replaced or removed while restarting; not restarted: %v", id, spawn.ErrReplaced), spawn.ErrReplaced)
}

func scrubbed(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, s := range scrubEnv {
			drop = drop || k == s
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}

// IsAgent reports whether a session runs an AI agent whose conversation a
// restart would throw away: tagged role=agent, or a claude command
// resuming a conversation (directly or through a shell's -c string).
// Restart refuses such sessions unless forced, as the original pty does.
func IsAgent(m *layout.Metadata) bool {
	if m.Tags[layout.TagRole] == layout.RoleAgent {
		return true
	}
	words := strings.Fields(strings.Join(append([]string{m.Command}, m.Args...), " "))
	claude := false
	for _, w := range words {
		switch {
		case filepath.Base(strings.Trim(w, `"'`)) == "claude":
			claude = true
		case claude && (w == "--resume" || strings.HasPrefix(w, "--resume=")):
			return true
		}
	}
	return false
}
