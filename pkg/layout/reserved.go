package layout

import "strings"

// The tags pty itself reads. They are the original pty's words, so
// sessions of either are treated alike; every package that reads or writes
// one names it from here, and reads a boolean one with Falsy or Truthy.
const (
	// TagStrategy set to StrategyPermanent makes pty gc respawn the
	// session when it ends (pty run --permanent sets it).
	TagStrategy       = "strategy"
	StrategyPermanent = "permanent"
	// TagKeep set to anything but a Falsy value keeps the record when the
	// session ends, and from gc's sweep.
	TagKeep = "keep"
	// TagParent names a session whose end makes gc stop this one.
	TagParent = "parent"
	// TagRole set to RoleAgent marks a session whose conversation a
	// restart would throw away.
	TagRole   = "role"
	RoleAgent = "agent"
	// Settings of gc's (docs/gc.md). TagCleanupOnCleanExit is Truthy to
	// remove the record of a session that exits 0 (pty run
	// --cleanup-on-clean-exit); TagAbandonIfCwdGone Falsy to respawn a
	// permanent session whose directory is gone; the others are numbers.
	TagCleanupOnCleanExit = "strategy.cleanup-on-clean-exit"
	TagAbandonIfCwdGone   = "strategy.abandon-if-cwd-gone"
	TagIdleDays           = "strategy.idle-days"
	TagFastFailWindow     = "strategy.fast-fail-window"
	TagFastFailLimit      = "strategy.fast-fail-limit"
)

// Tags of a session that a pty.toml declares: TagPtyfile is the file's
// absolute path, TagPtyfileSession the key of its [sessions.<key>], and
// TagPtyfileTags the comma-separated keys of the tags it declared. `pty
// up` rewrites the tags it declares, so hand edits to them do not last.
const (
	TagPtyfile        = "ptyfile"
	TagPtyfileSession = "ptyfile.session"
	TagPtyfileTags    = "ptyfile.tags"
)

// Tags gc writes about a strategy=permanent session's respawns: its
// crash-loop bookkeeping. gc, restart, `up` and every other relaunch read
// them from here, so they cannot disagree about which tags a fresh start
// clears.
const (
	TagStatus           = "strategy.status"
	StatusFlapping      = "flapping"
	TagLastRespawnAt    = "strategy.last-respawn-at"
	TagConsecutiveFails = "strategy.consecutive-fast-fails"
	TagCommandHash      = "strategy.command-hash"
)

// FastFailTags lists gc's crash-loop bookkeeping tags. A person starting a
// session again (restart, attach -r, run -a, the picker) or fixing its
// pty.toml starts the count over, so these are cleared.
func FastFailTags() []string {
	return []string{TagStatus, TagConsecutiveFails, TagLastRespawnAt, TagCommandHash}
}

// Falsy reports a value that turns a boolean tag (or PTY_REAP_ON_EXIT)
// off: false, 0, no or off, in any case, with spaces around. The original
// reads keep this way: a typo keeps a session rather than destroying it.
func Falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}

// Truthy reports a value that turns a boolean tag on: anything but an
// empty or Falsy one.
func Truthy(v string) bool { return strings.TrimSpace(v) != "" && !Falsy(v) }

// Keep reports whether tags ask for the record to be kept: TagKeep set,
// to anything but a Falsy value.
func Keep(tags map[string]string) bool {
	v, ok := tags[TagKeep]
	return ok && !Falsy(v)
}

// Permanent reports strategy=permanent: gc respawns the session.
func Permanent(tags map[string]string) bool { return tags[TagStrategy] == StrategyPermanent }

// ReservedTag reports a tag that pty or a tool manages rather than the
// user: the pty.toml identity, gc's strategy and its bookkeeping, and the
// ':' prefix of tags a tool owns (a layout tool's marks on the sessions it
// shows). Listings hide them unless asked for all tags.
func ReservedTag(k string) bool {
	return strings.HasPrefix(k, TagPtyfile) || strings.HasPrefix(k, TagStrategy) || strings.HasPrefix(k, ":")
}
