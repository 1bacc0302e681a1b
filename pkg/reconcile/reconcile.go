// Package reconcile is pty gc: one stateless pass over a registry that
// derives everything from the files on disk and brings them back in line
// with what the sessions' tags ask for. It respawns permanent sessions,
// stops orphans, reaps abandoned and finished sessions, removes debris and
// prunes dead layout tags.
//
// There is no long-running supervisor and no in-memory state: the restart
// counter lives in the session's own tags, so a pass can be run from cron,
// launchd or a systemd timer, by hand, or six times at once. Every action
// re-checks the session under its locks against what the pass first saw,
// so a session replaced or edited meanwhile is skipped, never removed or
// respawned over.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/leftovers"
)

// Defaults for the knobs a pass takes from flags and tags.
const (
	DefaultFastFailWindow = 60 * time.Second
	DefaultFastFailLimit  = 3
	DefaultKeepMaxAge     = 7 * 24 * time.Hour
	// DefaultFailedTTL keeps a failed session's record (its exit code,
	// last lines and events) well past the next timer tick.
	DefaultFailedTTL = 24 * time.Hour
	// DefaultDebrisGrace protects files a starting daemon or an in-flight
	// write has just created: nothing younger is ever debris.
	DefaultDebrisGrace = 30 * time.Second
	// DefaultStopTimeout is how long a SIGTERMed daemon gets to exit; the
	// daemon's own shutdown backstop is 5 s.
	DefaultStopTimeout = 7 * time.Second
	// lockWait bounds how long an action waits for a session's locks; a
	// session busier than that is skipped and retried next pass.
	lockWait = 2 * time.Second
)

// Options configures one pass. Start from DefaultOptions: a zero
// KeepMaxAge means "keep nothing", as --keep-max-age 0 does.
type Options struct {
	Root   string
	DryRun bool

	// FastFailWindow and FastFailLimit apply to permanent sessions without
	// their own strategy.fast-fail-* tags (tags win). Zero means default.
	FastFailWindow time.Duration
	FastFailLimit  int
	// IdleDays abandons permanent sessions nobody attached to for that
	// many days, unless the session sets strategy.idle-days. 0 = off.
	IdleDays int
	// KeepMaxAge is how long finished sessions kept for inspection (keep
	// tag, or cleanup-on-clean-exit with a failure) stay after their exit.
	KeepMaxAge time.Duration
	// FailedTTL is how long a finished session whose command failed
	// (layout.Metadata.Failed) stays after its exit when nothing else
	// keeps it. Zero removes it at once.
	FailedTTL time.Duration

	// DebrisGrace and StopTimeout: zero means the defaults.
	DebrisGrace time.Duration
	StopTimeout time.Duration

	// Report, when set, is called with each action as it happens, so a
	// long pass (a slow respawn) still prints as it goes.
	Report func(Action)
}

// DefaultOptions returns the options `pty gc` uses without flags.
func DefaultOptions(root string) Options {
	return Options{
		Root:           root,
		FastFailWindow: DefaultFastFailWindow,
		FastFailLimit:  DefaultFastFailLimit,
		KeepMaxAge:     DefaultKeepMaxAge,
		FailedTTL:      DefaultFailedTTL,
	}
}

// Action kinds, in the JSON "action" field.
const (
	KindDebris    = "debris"    // a leftover file removed
	KindOrphan    = "orphan"    // a session whose parent is gone, stopped and removed
	KindAbandoned = "abandoned" // a permanent session whose cwd is gone or that sat idle
	KindRemoved   = "removed"   // a finished session removed
	KindRespawned = "respawned" // a permanent session started again
	KindFlapping  = "flapping"  // a permanent session flagged as crash-looping
	KindPruned    = "pruned"    // a dead layout tag removed
	KindLeftovers = "leftovers" // processes of a session whose daemon died, stopped
	KindKept      = "kept"      // a finished session kept for inspection (no change)
	KindSkipped   = "skipped"   // nothing done, and why (no change)
	KindFailed    = "failed"    // the action failed; it is retried next pass
)

// Action is one line of gc's output.
type Action struct {
	Kind    string `json:"action"`
	ID      string `json:"id,omitempty"`
	File    string `json:"file,omitempty"`   // debris
	Reason  string `json:"reason,omitempty"` // machine-readable why
	Tag     string `json:"tag,omitempty"`    // pruned layout tag
	Error   string `json:"error,omitempty"`
	DryRun  bool   `json:"dryRun,omitempty"`
	Message string `json:"message"` // the human line
}

// Changes reports whether the action changed (or in a dry run, would
// change) the registry.
func (a Action) Changes() bool {
	switch a.Kind {
	case KindKept, KindSkipped, KindFailed:
		return false
	}
	return true
}

// Result is what one pass did.
type Result struct {
	DryRun  bool     `json:"dryRun"`
	Actions []Action `json:"actions"`
	Summary Summary  `json:"summary"`
}

// Summary counts actions by kind, plus the closing line.
type Summary struct {
	Counts map[string]int `json:"counts"`
	Text   string         `json:"text"`
}

// Run performs one pass. It returns an error only when the registry cannot
// be read at all; failed actions are reported in the result and retried by
// the next pass.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Root == "" {
		return nil, errors.New("gc: no root given")
	}
	if o.FastFailWindow <= 0 {
		o.FastFailWindow = DefaultFastFailWindow
	}
	if o.FastFailLimit <= 0 {
		o.FastFailLimit = DefaultFastFailLimit
	}
	if o.DebrisGrace <= 0 {
		o.DebrisGrace = DefaultDebrisGrace
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = DefaultStopTimeout
	}
	p := &pass{ctx: ctx, o: o, res: &Result{DryRun: o.DryRun, Actions: []Action{}}, done: map[string]bool{}}
	snap, err := scan(o.Root)
	if err != nil {
		return nil, fmt.Errorf("gc: %w", err)
	}
	p.snap = snap
	p.debris()
	p.orphans()
	p.abandoned()
	p.permanent()
	p.sweep()
	p.layoutTags()
	p.res.Summary = summarize(p.res.Actions, o.DryRun)
	return p.res, nil
}

type pass struct {
	ctx  context.Context
	o    Options
	snap *snapshot
	res  *Result
	// done holds sessions an earlier step already handled (removed,
	// respawned, skipped as busy) so later steps leave them alone.
	done map[string]bool
	// leftovers indexes the processes that carry a session's identity in
	// their environment; read once, when the first dead session needs it.
	leftovers     *leftovers.Index
	leftoversRead bool
	// daemons are the live session daemons of the root, found by their
	// identity (see republishing), read once a vanished session is acted on.
	daemons     []registry.LiveDaemon
	daemonsRead bool
}

func (p *pass) emit(a Action) {
	a.DryRun = p.o.DryRun
	p.res.Actions = append(p.res.Actions, a)
	if p.o.Report != nil {
		p.o.Report(a)
	}
}

// would picks the dry-run or the real wording of a line.
func (p *pass) would(dry, real string) string {
	if p.o.DryRun {
		return dry
	}
	return real
}
