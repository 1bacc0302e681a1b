package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

// FastFailTags are gc's crash-loop bookkeeping. A restart is a person
// deciding to try again, so the count starts over.
var FastFailTags = []string{
	"strategy.status",
	"strategy.consecutive-fast-fails",
	"strategy.last-respawn-at",
	"strategy.command-hash",
}

// scrubEnv are variables of an agent harness that must not leak from the
// restarting shell into the restarted session.
var scrubEnv = []string{"ST_AGENT", "ST_ROOT"}

// Restart starts a session again from its stored launch settings
// (command, args, cwd, size, env policy, tags, display name). A running
// session is killed first, as `pty kill` does; it fails if anything of the
// old session survives. gc's fast-fail tags are dropped. env is the base
// environment of the new child (nil: this process's).
func Restart(ctx context.Context, root string, s layout.Session, env []string) error {
	if s.Damaged != "" {
		// Its command, cwd and settings were in the record.
		return fmt.Errorf("Session %q cannot be restarted: its record is damaged (%s), so its command is unknown. Stop it with \"pty kill %s\" and remove it with \"pty rm %s\".", s.ID, s.Damaged, s.ID, s.ID)
	}
	if s.Status == layout.Running {
		// Kill drops the strategy tag, so gc cannot respawn the session
		// in the gap before ours starts; the new session gets it back.
		res, err := Kill(root, s, KillOptions{})
		if err != nil && !errors.Is(err, ErrNotRunning) {
			return err
		}
		if len(res.Survivors) > 0 {
			return fmt.Errorf("Session %q: processes %s survived the kill; not restarted.", s.ID, FormatPids(res.Survivors))
		}
	}
	// An exited session's daemon may still be in its short shutdown; a
	// start now would find the id "already running".
	if err := waitDaemonGone(root, s.ID, s.Meta.Generation, DaemonWait); err != nil {
		return fmt.Errorf("%w; not restarted.", err)
	}
	// Re-read: the daemon recorded the exit and tags may have changed
	// while it ran. An ephemeral session's record is gone; the one we
	// were given has its settings.
	m := s.Meta
	if cur, err := layout.ReadMetadata(root, s.ID); err == nil {
		m = cur
	}
	o := spawn.OptionsFromMetadata(s.ID, m)
	if v, ok := s.Meta.Tags["strategy"]; ok {
		if o.Tags == nil {
			o.Tags = map[string]string{}
		}
		o.Tags["strategy"] = v
	}
	for _, k := range FastFailTags {
		delete(o.Tags, k)
	}
	o.Replace = true
	if env == nil {
		env = os.Environ()
	}
	o.Env = scrubbed(env)
	if _, err := spawn.Start(ctx, root, o); err != nil {
		return fmt.Errorf("restart %s: %w", s.ID, err)
	}
	return nil
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
	if m.Tags["role"] == "agent" {
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
