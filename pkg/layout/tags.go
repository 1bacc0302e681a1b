package layout

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TagPtyfile marks a session that a pty.toml declares; `pty up` rewrites the
// tags it declares, so hand edits to them do not last.
const TagPtyfile = "ptyfile"

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

// MaxTagKey is the longest tag key, in bytes. Keys are identifiers people
// type and filter on; a longer one is a mistake, not data.
const MaxTagKey = 256

// Tags are labels, not storage (that is what `pty state` is for), and
// every tags_change event carries the full maps before and after: tag
// sizes multiply into the event log. MaxTagValue bounds one value in
// bytes, MaxTags the number of tags on a session, MaxTagsBytes their keys
// and values together.
const (
	MaxTagValue  = 4096
	MaxTags      = 256
	MaxTagsBytes = 64 << 10
)

// ErrConditionFailed is returned by SetTagsIf when the session no longer
// satisfies the caller's condition once its lock is held.
var ErrConditionFailed = errors.New("session no longer matches")

// ValidateTagKey checks a tag key: non-empty, no '=' (the CLI's KEY=VALUE
// syntax could never address it), one line of printable text.
func ValidateTagKey(k string) error {
	switch {
	case k == "":
		return errors.New("tag key is empty: write tags as KEY=VALUE and removals as --rm KEY")
	case len(k) > MaxTagKey:
		return fmt.Errorf("tag key is %d bytes long: at most %d are allowed", len(k), MaxTagKey)
	case strings.Contains(k, "="):
		return fmt.Errorf("tag key %q contains '=': a key cannot contain '=' (the value is everything after the first '=')", k)
	case !utf8.ValidString(k):
		return fmt.Errorf("tag key %q is not valid UTF-8", k)
	case hasControl(k):
		return fmt.Errorf("tag key %q contains a control character or line break: use one line of printable text", k)
	}
	if r, ok := firstInvisible(k); ok {
		return invisibleErr(fmt.Sprintf("tag key %q", k), r)
	}
	return nil
}

// ValidateTagValue checks a tag value. Values are free text, but one line:
// `pty tag` lists them as k=v lines and a newline would forge another tag.
func ValidateTagValue(k, v string) error {
	if len(v) > MaxTagValue {
		return fmt.Errorf("tag %s: value is %d bytes long: at most %d are allowed; keep larger data in pty state", k, len(v), MaxTagValue)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("tag %s: value is not valid UTF-8", k)
	}
	if hasControl(v) {
		return fmt.Errorf("tag %s: value %q contains a control character or line break: use one line of printable text", k, v)
	}
	if r, ok := firstInvisible(v); ok {
		return invisibleErr(fmt.Sprintf("tag %s: value %q", k, v), r)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// Invisible reports whether r is a Unicode format character (category
// Cf: bidi embeddings, overrides and isolates, zero-width spaces and
// joiners, the byte order mark, the soft hyphen). None of them shows, and
// a bidi override makes the text after it display reversed, so a label
// holding one can read as something else, another session's name included.
func Invisible(r rune) bool { return r > 0x7f && unicode.Is(unicode.Cf, r) }

// firstInvisible returns the first rune of s that Invisible reports, and
// whether there is one.
func firstInvisible(s string) (rune, bool) {
	for _, r := range s {
		if Invisible(r) {
			return r, true
		}
	}
	return 0, false
}

func invisibleErr(what string, r rune) error {
	return fmt.Errorf("%s contains the invisible formatting character U+%04X (bidi controls, zero-width characters and byte order marks are refused, since they make text display as something else): remove it", what, r)
}

// ValidateTagOps checks a set of tag changes as a whole, so a caller can
// refuse bad input before touching any session.
func ValidateTagOps(set map[string]string, rm []string) error {
	for _, k := range sortedKeys(set) {
		if err := ValidateTagKey(k); err != nil {
			return err
		}
		if err := ValidateTagValue(k, set[k]); err != nil {
			return err
		}
	}
	for _, k := range rm {
		if err := ValidateTagKey(k); err != nil {
			return fmt.Errorf("--rm: %w", err)
		}
	}
	return nil
}

// checkTagTotals refuses a session's complete tag map when it holds more
// than MaxTags tags or MaxTagsBytes of keys and values.
func checkTagTotals(id string, tags map[string]string) error {
	if len(tags) > MaxTags {
		return fmt.Errorf("session %s would have %d tags: at most %d are allowed; remove some with --rm", id, len(tags), MaxTags)
	}
	n := 0
	for k, v := range tags {
		n += len(k) + len(v)
	}
	if n > MaxTagsBytes {
		return fmt.Errorf("session %s's tags would be %d bytes: at most %d (64 KiB) are allowed in all; remove some with --rm, or keep larger data in pty state", id, n, MaxTagsBytes)
	}
	return nil
}

// ValidateTags checks a complete tag map, as a new session gets it: each
// key and value, and the totals.
func ValidateTags(id string, tags map[string]string) error {
	if err := ValidateTagOps(tags, nil); err != nil {
		return err
	}
	return checkTagTotals(id, tags)
}

// ApplyTags returns tags with set applied and then rm removed (so a key both
// set and removed ends up removed), without changing tags. The result is
// never nil.
func ApplyTags(tags, set map[string]string, rm []string) map[string]string {
	out := make(map[string]string, len(tags)+len(set))
	maps.Copy(out, tags)
	maps.Copy(out, set)
	for _, k := range rm {
		delete(out, k)
	}
	return out
}

// setTags sets and removes tags of one session in one locked change (sets
// first, then removals) and appends one tags_change event with the full
// previous and new maps. Nothing is written and no event appended when the
// tags would not change. Input is validated before any lock is taken.
func setTags(root, id string, set map[string]string, rm []string) (changed bool, m *Metadata, err error) {
	return setTagsIf(root, id, nil, set, rm)
}

// setTagsIf is SetTags that first checks cond against the session's tags as
// read under the lock, and returns ErrConditionFailed (writing nothing) when
// it is false: a bulk change selected by tag must not hit a session whose
// tags changed since it was selected.
func setTagsIf(root, id string, cond func(tags map[string]string) bool, set map[string]string, rm []string) (changed bool, m *Metadata, err error) {
	if err := ValidateID(id); err != nil {
		return false, nil, err
	}
	if err := ValidateTagOps(set, rm); err != nil {
		return false, nil, err
	}
	return change(root, id, func(m *Metadata) ([]Event, error) {
		if cond != nil && !cond(m.Tags) {
			return nil, fmt.Errorf("tag %s: %w", id, ErrConditionFailed)
		}
		next := ApplyTags(m.Tags, set, rm)
		if maps.Equal(next, m.Tags) {
			return nil, ErrNoChange
		}
		if err := checkTagTotals(id, next); err != nil && growsTags(m.Tags, next) {
			return nil, err
		}
		prev := m.Tags
		if prev == nil {
			prev = map[string]string{}
		}
		if len(next) == 0 {
			m.Tags = nil // an empty map removes the field
		} else {
			m.Tags = next
		}
		return []Event{NewEvent(id, EventTagsChange, "previous", prev, "value", next)}, nil
	})
}

// change runs fn through Update and reports whether it changed anything
// (fn returns ErrNoChange when it did not).
func change(root, id string, fn func(m *Metadata) ([]Event, error)) (bool, *Metadata, error) {
	changed := false
	m, err := updateRecord(root, id, func(m *Metadata) ([]Event, error) {
		evs, err := fn(m)
		if err == nil {
			changed = true
		}
		return evs, err
	})
	if err != nil {
		return false, nil, err
	}
	return changed, m, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SortedTags returns a session's tags as sorted "k=v" strings.
func SortedTags(tags map[string]string) []string {
	out := make([]string, 0, len(tags))
	for _, k := range sortedKeys(tags) {
		out = append(out, k+"="+tags[k])
	}
	return out
}

// growsTags reports whether next has more tags or more bytes than prev: a
// change that shrinks an over-limit map (written before the limits, or by
// another writer) must stay possible.
func growsTags(prev, next map[string]string) bool {
	size := func(m map[string]string) (n int) {
		for k, v := range m {
			n += len(k) + len(v)
		}
		return n
	}
	return len(next) > len(prev) || size(next) > size(prev)
}
