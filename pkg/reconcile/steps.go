package reconcile

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/pkg/layout"
)

// orphans stops and removes sessions tagged parent=ID whose parent is
// missing or not running. It runs to a fixed point in id order, so a
// chain whose root died goes in one pass, and a cycle (A's parent is B,
// B's is A) resolves the same way every time: once one member is
// reaped, the next in id order has a dead parent too. Orphan reaping wins
// over permanence: a permanent child of a dead parent is not respawned.
func (p *pass) orphans() {
	reaped := map[string]bool{}
	parentState := func(parent string) string {
		if reaped[parent] {
			return "dead"
		}
		e := p.snap.sessions[parent]
		switch {
		case e == nil:
			return "missing"
		case !e.running():
			return "dead"
		}
		return ""
	}
	for progress := true; progress; {
		progress = false
		for _, id := range p.snap.ids {
			e := p.snap.sessions[id]
			parent := e.tag(layout.TagParent)
			if p.done[id] || parent == "" || parent == id {
				continue
			}
			why := parentState(parent)
			if why == "" {
				continue
			}
			progress = true
			p.done[id] = true
			detail := fmt.Sprintf("parent %s is %s", parent, why)
			if p.o.DryRun {
				reaped[id] = true
				p.emit(Action{Kind: KindOrphan, ID: id, Reason: "parent-" + why, Message: fmt.Sprintf("Would reap orphan: %s (%s)", id, detail)})
				continue
			}
			reason, err := p.stopAndRemove(e)
			if err != nil {
				p.emit(Action{Kind: KindSkipped, ID: id, Reason: reason, Error: err.Error(), Message: fmt.Sprintf("Skipped orphan reap: %s (%s)", id, reason)})
				continue
			}
			reaped[id] = true
			p.emit(Action{Kind: KindOrphan, ID: id, Reason: "parent-" + why, Message: fmt.Sprintf("Reaped orphan: %s (%s)", id, detail)})
		}
	}
}

// abandoned removes permanent sessions nobody can use any more: their
// working directory is gone (unless strategy.abandon-if-cwd-gone=false),
// or nobody attached for strategy.idle-days (or --idle-days) days. A
// running one is stopped first. Status is not the point: a dead permanent
// session with its cwd gone is removed rather than respawned into nothing.
func (p *pass) abandoned() {
	now := time.Now()
	cwdGone := map[string]bool{} // sessions often share a directory
	for _, id := range p.snap.ids {
		e := p.snap.sessions[id]
		if p.done[id] || !e.permanent() {
			continue
		}
		var ev layout.Event
		var reason, detail string
		if e.meta.Cwd != "" && !layout.Falsy(e.tag(layout.TagAbandonIfCwdGone)) {
			gone, seen := cwdGone[e.meta.Cwd]
			if !seen {
				_, err := os.Stat(e.meta.Cwd)
				gone = errors.Is(err, os.ErrNotExist)
				cwdGone[e.meta.Cwd] = gone
			}
			if gone {
				reason, detail = "cwd-gone", "cwd gone: "+e.meta.Cwd
				ev = layout.NewEvent(id, layout.EventSessionAbandoned, "reason", reason)
			}
		}
		if reason == "" {
			days := p.o.IdleDays
			if n, ok := positiveInt(e.tag(layout.TagIdleDays)); ok {
				days = n
			}
			last := layout.ParseTime(e.meta.LastAttachAt)
			if days > 0 && !last.IsZero() {
				if idle := int(now.Sub(last) / (24 * time.Hour)); idle >= days {
					reason, detail = "idle", fmt.Sprintf("no attach for %d days, limit %d", idle, days)
					ev = layout.NewEvent(id, layout.EventSessionAbandoned, "reason", reason, "idleDays", idle)
				}
			}
		}
		if reason == "" {
			continue
		}
		p.done[id] = true
		if p.o.DryRun {
			p.emit(Action{Kind: KindAbandoned, ID: id, Reason: reason, Message: fmt.Sprintf("Would abandon: %s (%s)", id, detail)})
			continue
		}
		why, err := p.stopAndRemove(e, ev)
		if err != nil {
			p.emit(Action{Kind: KindSkipped, ID: id, Reason: why, Error: err.Error(), Message: fmt.Sprintf("Skipped abandoned reap: %s (%s)", id, why)})
			continue
		}
		p.emit(Action{Kind: KindAbandoned, ID: id, Reason: reason, Message: fmt.Sprintf("Abandoned: %s (%s)", id, detail)})
	}
}

// sweep removes finished sessions that are not permanent, except those
// kept for inspection: a keep tag, or cleanup-on-clean-exit with a failed
// (or unrecorded) exit. Those go once KeepMaxAge has passed since their
// exit (or, with no exit recorded, since their creation). Any other
// failure (an exit the session did not ask for) goes once FailedTTL has
// passed since its exit, so its trace outlives the next pass.
func (p *pass) sweep() {
	now := time.Now()
	for _, id := range p.snap.ids {
		e := p.snap.sessions[id]
		if p.done[id] || e.permanent() || !e.gone() {
			continue
		}
		p.done[id] = true
		keep := layout.Keep(e.meta.Tags)
		coce := layout.Truthy(e.tag(layout.TagCleanupOnCleanExit))
		clean := e.meta.ExitCode != nil && *e.meta.ExitCode == 0
		var reason, label string
		switch {
		case coce && clean:
			reason, label = "clean-exit", " (clean exit)"
		case keep || coce:
			anchor := layout.ParseTime(e.meta.ExitedAt)
			if anchor.IsZero() {
				anchor = layout.ParseTime(e.meta.CreatedAt)
			}
			age := now.Sub(anchor)
			if !anchor.IsZero() && age < p.o.KeepMaxAge {
				why := "keep tag"
				hint := "remove the keep tag to reap it"
				if !keep {
					why = "failed, cleanup-on-clean-exit"
					if e.meta.ExitCode != nil {
						why = fmt.Sprintf("exit code %d, cleanup-on-clean-exit", *e.meta.ExitCode)
					}
					hint = "kept for inspection"
				}
				p.emit(Action{Kind: KindKept, ID: id, Reason: strings.ReplaceAll(why, " ", "-"),
					Message: fmt.Sprintf("Kept (%s): %s — %s; removed after %s", why, id, hint, duration.Format(p.o.KeepMaxAge))})
				continue
			}
			reason, label = "keep-expired", fmt.Sprintf(" (keep expired after %s)", duration.Format(p.o.KeepMaxAge))
		case e.meta.Failed():
			exited := layout.ParseTime(e.meta.ExitedAt)
			if !exited.IsZero() && now.Sub(exited) < p.o.FailedTTL {
				why := fmt.Sprintf("exit code %d", *e.meta.ExitCode)
				p.emit(Action{Kind: KindKept, ID: id, Reason: "failed",
					Message: fmt.Sprintf("Kept (%s): %s — kept for inspection; removed after %s", why, id, duration.Format(p.o.FailedTTL))})
				continue
			}
			reason, label = "failed-expired", fmt.Sprintf(" (failure kept %s)", duration.Format(p.o.FailedTTL))
		default:
			reason = string(e.status())
		}
		p.remove(e, reason, label)
	}
}

// remove is the common "Removed: X" action for a finished session.
func (p *pass) remove(e *entry, reason, label string) {
	if p.o.DryRun {
		p.emit(Action{Kind: KindRemoved, ID: e.id, Reason: reason, Message: fmt.Sprintf("Would remove%s: %s", label, e.id)})
		return
	}
	if err := p.removeDead(e); err != nil {
		p.skipped(e.id, "remove", err)
		return
	}
	p.emit(Action{Kind: KindRemoved, ID: e.id, Reason: reason, Message: fmt.Sprintf("Removed%s: %s", label, e.id)})
}

// skipped reports an action that did not happen because the session
// changed or was busy (no change, retried next pass), or failed.
func (p *pass) skipped(id, what string, err error) {
	switch r := skipReason(err); r {
	case "stale":
		p.emit(Action{Kind: KindSkipped, ID: id, Reason: r, Message: fmt.Sprintf("Skipped (changed meanwhile): %s", id)})
	case "busy":
		p.emit(Action{Kind: KindSkipped, ID: id, Reason: r, Message: fmt.Sprintf("Skipped (busy): %s", id)})
	case "republishing":
		p.emit(Action{Kind: KindSkipped, ID: id, Reason: r, Message: fmt.Sprintf("Skipped (daemon alive, publishing its files again): %s", id)})
	default:
		p.emit(Action{Kind: KindFailed, ID: id, Reason: what, Error: err.Error(), Message: fmt.Sprintf("Failed to %s %s: %v", what, id, err)})
	}
}

// layoutTagRE matches the tags a layout tool puts on the sessions it shows,
// ":l<its pid>-<random>": when that pid is dead the tag is stale.
var layoutTagRE = regexp.MustCompile(`^:l(\d+)-[a-z0-9]+$`)

// layoutTags removes stale layout tags from running sessions.
func (p *pass) layoutTags() {
	for _, id := range p.snap.ids {
		e := p.snap.sessions[id]
		if p.done[id] || !e.running() {
			continue
		}
		var dead []string
		for k := range e.meta.Tags {
			if m := layoutTagRE.FindStringSubmatch(k); m != nil {
				if pid, err := strconv.Atoi(m[1]); err == nil && !proc.Alive(pid) {
					dead = append(dead, k)
				}
			}
		}
		if len(dead) == 0 {
			continue
		}
		sort.Strings(dead)
		if !p.o.DryRun {
			_, err := layout.At(p.o.Root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
				if !bytes.Equal(fingerprint(m), e.fingerprint()) {
					return nil, errStale
				}
				prev := maps.Clone(m.Tags)
				for _, k := range dead {
					delete(m.Tags, k)
				}
				value := maps.Clone(m.Tags)
				if len(m.Tags) == 0 {
					m.Tags, value = nil, map[string]string{}
				}
				return []layout.Event{layout.NewEvent(id, layout.EventTagsChange, "previous", prev, "value", value)}, nil
			})
			if err != nil {
				p.skipped(id, "prune layout tags of", err)
				continue
			}
		}
		for _, k := range dead {
			p.emit(Action{Kind: KindPruned, ID: id, Tag: k, Message: p.would("Would prune", "Pruned") + fmt.Sprintf(" layout tag %s: %s", k, id)})
		}
	}
}

func positiveInt(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0
}

// summarize counts the actions and writes the closing line.
func summarize(acts []Action, dry bool) Summary {
	c := map[string]int{}
	for _, a := range acts {
		c[a.Kind]++
	}
	var parts []string
	add := func(kind, one, many string) {
		if n := c[kind]; n > 0 {
			w := many
			if n == 1 {
				w = one
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, w))
		}
	}
	add(KindRemoved, "session removed", "sessions removed")
	add(KindRespawned, "respawned", "respawned")
	add(KindOrphan, "orphan reaped", "orphans reaped")
	add(KindAbandoned, "abandoned", "abandoned")
	add(KindFlapping, "flagged flapping", "flagged flapping")
	add(KindDebris, "debris file", "debris files")
	add(KindPruned, "layout tag pruned", "layout tags pruned")
	add(KindLeftovers, "crashed session's processes stopped", "crashed sessions' processes stopped")
	var text string
	switch {
	case len(parts) == 0 && dry:
		text = "Nothing to clean up. (Dry run — no changes made.)"
	case len(parts) == 0:
		text = "Nothing to clean up."
	case dry:
		text = "Would clean up: " + strings.Join(parts, ", ") + ". (Dry run — no changes made.)"
	default:
		text = "Cleaned up: " + strings.Join(parts, ", ") + "."
	}
	if n := c[KindFailed]; n > 0 {
		text += fmt.Sprintf(" %d failed; the next pass retries.", n)
	}
	return Summary{Counts: c, Text: text}
}
