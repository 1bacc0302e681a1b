package reconcile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/spawn"
)

// CommandHash identifies a launch command for the flapping bookkeeping:
// the first 16 hex digits of sha256(command NUL args joined by NUL). A
// changed hash means the user fixed the command, so the count restarts.
func CommandHash(command string, args []string) string {
	h := sha256.Sum256([]byte(command + "\x00" + strings.Join(args, "\x00")))
	return hex.EncodeToString(h[:])[:16]
}

// permanent brings finished strategy=permanent sessions back: removed
// instead when they asked for cleanup on a clean exit and got one,
// flagged instead when they keep failing fast.
func (p *pass) permanent() {
	for _, id := range p.snap.ids {
		e := p.snap.sessions[id]
		if p.done[id] || !e.permanent() || !e.gone() {
			continue
		}
		p.done[id] = true
		if layout.Truthy(e.tag(layout.TagCleanupOnCleanExit)) && e.meta.ExitCode != nil && *e.meta.ExitCode == 0 {
			p.remove(e, "clean-exit", " (clean exit)")
			continue
		}
		opts, note, declared := p.launchOptions(e)
		if !declared {
			p.remove(e, "not-declared", " (no longer declared in its pty.toml)")
			continue
		}
		p.respawn(e, opts, note)
	}
}

// launchOptions rebuilds how to start e again. A session that came from a
// pty.toml is re-read from the file, so fixing the file fixes the next
// respawn; when the file cannot be read the stored settings are used and
// note says why. declared is false when the file parses but no longer
// declares the session.
func (p *pass) launchOptions(e *entry) (o spawn.Options, note string, declared bool) {
	o = spawn.OptionsFromMetadata(e.id, e.full())
	path, key, ok := ptyfile.Origin(e.meta.Tags)
	if !ok {
		return o, "", true
	}
	f, err := ptyfile.Load(path)
	if err != nil {
		return o, fmt.Sprintf("pty.toml unreadable, using stored settings: %v", err), true
	}
	s, found := f.Session(key)
	if !found {
		return o, "", false
	}
	l := f.Launch(s)
	o.Command, o.Args, o.DisplayCommand, o.Cwd = l.Command, l.Args, l.DisplayCommand, l.Cwd
	o.ExtraEnv = l.ExtraEnv
	if l.Scrollback != nil {
		o.Scrollback = l.Scrollback // else the record's
	}
	name := l.DisplayName
	o.DisplayName = &name
	// The file's tags replace the ones it declared before; tags added by
	// hand stay. gc's own bookkeeping is written anew by the respawn.
	o.Tags, _, _ = ptyfile.SyncTags(e.meta.Tags, l.Tags)
	return o, "", true
}

// respawn applies the fast-fail cap and then starts the session again
// under the same id.
func (p *pass) respawn(e *entry, o spawn.Options, note string) {
	id := e.id
	window := p.o.FastFailWindow
	if d, err := duration.Parse(e.tag(layout.TagFastFailWindow)); err == nil && d > 0 {
		window = d
	}
	limit := p.o.FastFailLimit
	if n, ok := positiveInt(e.tag(layout.TagFastFailLimit)); ok {
		limit = n
	}
	hash := CommandHash(o.Command, o.Args)
	prevHash := e.tag(layout.TagCommandHash)
	if e.tag(layout.TagStatus) == layout.StatusFlapping && (prevHash == hash || prevHash == "") {
		p.emit(Action{Kind: KindSkipped, ID: id, Reason: "flapping",
			Message: fmt.Sprintf("Skipped (flapping): %s — remove the strategy.status tag (pty tag %s --rm strategy.status) to retry", id, id)})
		return
	}
	counter := 0
	prev, _ := strconv.Atoi(e.tag(layout.TagConsecutiveFails))
	// A count already at the limit without the flapping status means
	// someone removed the status to retry: that retry starts from zero,
	// or the very next fast fail would flag it again without a respawn.
	retry := prev >= limit && e.tag(layout.TagStatus) != layout.StatusFlapping
	if (prevHash == "" || prevHash == hash) && !retry {
		last := layout.ParseTime(e.tag(layout.TagLastRespawnAt))
		exited := layout.ParseTime(e.meta.ExitedAt)
		if !last.IsZero() && !exited.IsZero() {
			if d := exited.Sub(last); d >= 0 && d < window {
				counter = max(prev, 0) + 1
			}
		}
	}
	wsecs := int(window / time.Second)
	if counter >= limit {
		p.flag(e, hash, counter, limit, wsecs)
		return
	}
	bookkeeping := map[string]string{
		layout.TagLastRespawnAt:    layout.Now(),
		layout.TagConsecutiveFails: strconv.Itoa(counter),
		layout.TagCommandHash:      hash,
	}
	msgNote := ""
	if note != "" {
		msgNote = " (" + note + ")"
	}
	if p.o.DryRun {
		p.emit(Action{Kind: KindRespawned, ID: id, Message: "Would respawn: " + id + msgNote})
		return
	}
	if err := p.startAgain(e, o, bookkeeping); err != nil {
		if r := skipReason(err); r != "" {
			p.skipped(id, "respawn", err)
			return
		}
		p.emit(Action{Kind: KindFailed, ID: id, Reason: "respawn", Error: err.Error(), Message: fmt.Sprintf("Respawn failed: %s — %v", id, err)})
		return
	}
	p.emit(Action{Kind: KindRespawned, ID: id, Message: "Respawned: " + id + msgNote})
}

// startAgain is the race-free part of a respawn. A claim file serializes
// gc passes on this id (spawn's Replace takes the session locks itself,
// so we cannot hold those across it); under the claim the session is
// re-checked under its locks, and only a record still exactly as this
// pass saw it, with its daemon still dead, is replaced. A pass that comes
// second finds a new generation and skips, so six passes at once make one
// daemon. The start itself is lifecycle.Relaunch, as for every other way
// of starting a session again; it replaces only the generation this pass
// saw.
//
// A session from a pty.toml is respawned under its identity lock too, the
// one `pty up` and `pty down` hold while they look at what runs of it and
// act: an up that is starting it is never raced by a second start here,
// and a down that is stopping it never sees it come back. A busy lock is a
// skip (the next pass retries); a stale one is taken over.
func (p *pass) startAgain(e *entry, o spawn.Options, bookkeeping map[string]string) error {
	if path, key, ok := ptyfile.Origin(e.meta.Tags); ok {
		ident, err := fsx.AcquireLock(ptyfile.IdentityLock(p.o.Root, path, key), 0, rootdir.CheckPerms)
		if err != nil {
			return err
		}
		defer ident.Release()
	}
	claim, err := fsx.AcquireLock(claimPath(p.o.Root, e.id), 0, rootdir.CheckPerms)
	if err != nil {
		return err
	}
	defer claim.Release()
	// What a crashed generation left running would run on beside the new
	// one.
	if err := p.stopLeftovers(e); err != nil {
		return err
	}
	err = layout.At(p.o.Root).Locked(e.id, lockWait, func() error {
		m, ok := unchanged(p.o.Root, e)
		if !ok {
			return errStale
		}
		// A daemon lingering after its recorded exit is no reason to
		// wait for the next pass: Relaunch waits for it to finish.
		if alive, _ := layout.At(p.o.Root).DaemonAlive(e.id, ""); layout.StatusOf(m, alive) == layout.Running {
			return errStale
		}
		return nil
	})
	if err != nil {
		return err
	}
	s := layout.Session{ID: e.id, Meta: e.full(), Status: e.status()}
	_, err = lifecycle.Relaunch(p.ctx, p.o.Root, s, lifecycle.RelaunchOptions{
		Launch:      func(spawn.Options) spawn.Options { return o },
		Bookkeeping: bookkeeping,
		MustExist:   true,
	})
	if err != nil {
		// Someone else (pty run -a, restart, up) took the id between our
		// check and the daemon's creation: theirs stands.
		if errors.Is(err, spawn.ErrRunning) || errors.Is(err, spawn.ErrInUse) || errors.Is(err, spawn.ErrReplaced) {
			return fmt.Errorf("%w: %v", errStale, err)
		}
		if m, rerr := readMeta(p.o.Root, e.id); rerr == nil && !bytes.Equal(fingerprint(m), e.fingerprint()) {
			return fmt.Errorf("%w: %v", errStale, err)
		}
		return err
	}
	// The new daemon starts a fresh event log; the respawn goes in it.
	if err := layout.At(p.o.Root).AppendEvents(e.id, layout.NewEvent(e.id, layout.EventSessionRespawn)); err != nil {
		return fmt.Errorf("respawned, but logging session_respawn failed: %w", err)
	}
	return nil
}

// flag marks a crash-looping session so later passes leave it alone until
// someone removes the tag, restarts it, or changes its command.
func (p *pass) flag(e *entry, hash string, counter, limit, window int) {
	id := e.id
	detail := fmt.Sprintf("%d fast-fails in %ds, limit %d", counter, window, limit)
	if p.o.DryRun {
		p.emit(Action{Kind: KindFlapping, ID: id, Message: fmt.Sprintf("Would flag as flapping: %s (%s)", id, detail)})
		return
	}
	_, err := layout.At(p.o.Root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		if !bytes.Equal(fingerprint(m), e.fingerprint()) {
			return nil, errStale
		}
		if alive, _ := layout.At(p.o.Root).DaemonAlive(id, ""); layout.StatusOf(m, alive) == layout.Running {
			return nil, errStale
		}
		prev := maps.Clone(m.Tags)
		if m.Tags == nil {
			m.Tags = map[string]string{}
		}
		m.Tags[layout.TagStatus] = layout.StatusFlapping
		m.Tags[layout.TagConsecutiveFails] = strconv.Itoa(counter)
		m.Tags[layout.TagCommandHash] = hash
		return []layout.Event{
			layout.NewEvent(id, layout.EventSessionFlapping, "counter", counter, "limit", limit, "window", window),
			layout.NewEvent(id, layout.EventTagsChange, "previous", prev, "value", maps.Clone(m.Tags)),
		}, nil
	})
	if err != nil {
		p.skipped(id, "flag", err)
		return
	}
	p.emit(Action{Kind: KindFlapping, ID: id, Message: fmt.Sprintf("Flapping: %s (%s)", id, detail)})
}
