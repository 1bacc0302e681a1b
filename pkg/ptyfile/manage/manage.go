// Package manage carries out `pty up` and `pty down`: it compares what a
// pty.toml declares with the sessions in the registry that belong to it
// and starts, re-tags or stops them. It lives apart from pkg/ptyfile so that
// the parser stays free of spawn and daemon code (gc imports the parser).
package manage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/ptyfile"
	"github.com/ptyorg/pty/pkg/spawn"
)

// Output is where up and down report: one line per session on Out, problems
// on Err.
type Output struct {
	Out, Err io.Writer
}

func (o Output) fail(key string, err error) {
	fmt.Fprintf(o.Err, "pty: %s: %v\n", key, err)
}

// Preflight checks what only the machine can tell (a cwd that does not
// exist), for every spec, before anything is started: bad input must leave
// the registry as it was.
func Preflight(f *ptyfile.File, specs []ptyfile.Spec) error {
	for _, s := range specs {
		if err := launchconfig.CheckCwd(s.Cwd); err != nil {
			return f.ErrorAt(s, "cwd: %v", err)
		}
	}
	return nil
}

// Owned returns the registry's sessions that came from f, in id order.
func Owned(root string, f *ptyfile.File) ([]layout.Session, error) {
	all, err := layout.At(root).List()
	if err != nil {
		return nil, err
	}
	var out []layout.Session
	for _, s := range all {
		if s.Meta.Tags[layout.TagPtyfile] == f.Path {
			out = append(out, s)
		}
	}
	return out, nil
}

// Up starts the declared sessions that are not running and brings the tags
// of running ones in line with the file. It reports per session and returns
// how many it started and how many failed.
func Up(ctx context.Context, root string, f *ptyfile.File, specs []ptyfile.Spec, o Output) (started, failed int, err error) {
	if err := Preflight(f, specs); err != nil {
		return 0, 0, err
	}
	for _, s := range specs {
		did, err := upLocked(ctx, root, f, s, o)
		if err != nil {
			o.fail("sessions."+s.Key, err)
			failed++
			continue
		}
		if did {
			started++
		}
	}
	switch {
	case failed > 0:
	case started == 0:
		fmt.Fprintln(o.Out, "All sessions already running.")
	default:
		fmt.Fprintf(o.Out, "Started %d %s.\n", started, plural(started, "session", "sessions"))
	}
	return started, failed, nil
}

// upLocked is upOne holding the spec's identity lock, with the registry
// read under it: the look at what runs and the start are one step, so
// concurrent ups of one file start each declared session once.
func upLocked(ctx context.Context, root string, f *ptyfile.File, s ptyfile.Spec, o Output) (started bool, err error) {
	l, err := fsx.AcquireLock(IdentityLock(root, f.Path, s.Key), identityWait, rootdir.CheckPerms)
	if errors.Is(err, layout.ErrLockBusy) {
		return false, fmt.Errorf("another pty up is still starting this session (%w); try again", err)
	}
	if err != nil {
		return false, err
	}
	defer l.Release()
	for attempt := 0; ; attempt++ {
		owned, err := Owned(root, f)
		if err != nil {
			return false, err
		}
		started, err := upOne(ctx, root, f, s, owned, o)
		// gc's respawn holds this lock only until its daemon reports
		// ready, a moment before that daemon takes over its launch claim:
		// the registry can still show it not running while a start finds
		// it running. That is the outcome up wants, so look again and
		// report it (and sync its tags) as any running session.
		if errors.Is(err, spawn.ErrRunning) && attempt < 20 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		return started, err
	}
}

// identityWait bounds the wait for another up of the same session, which
// may be waiting for its daemon's report for up to spawn.ReadyTimeout.
const identityWait = spawn.ReadyTimeout + 5*time.Second

// IdentityLock is ptyfile.IdentityLock: up, down and gc's respawn take it.
func IdentityLock(root, path, key string) string { return ptyfile.IdentityLock(root, path, key) }

// IdentityLockPrefix starts the names of identity locks.
const IdentityLockPrefix = ptyfile.IdentityLockPrefix

func upOne(ctx context.Context, root string, f *ptyfile.File, s ptyfile.Spec, owned []layout.Session, o Output) (started bool, err error) {
	want := f.Tags(s)
	var mine []layout.Session
	for _, sess := range owned {
		if f.Owns(sess.Meta.Tags, s) {
			mine = append(mine, sess)
		}
	}
	for _, sess := range mine {
		if sess.Shown() == layout.Running {
			changes, err := syncTags(root, f, s, sess, want)
			if err != nil {
				return false, err
			}
			msg := "already running"
			if len(changes) > 0 {
				msg += ", updated tags: " + strings.Join(changes, " ")
			}
			fmt.Fprintf(o.Out, "● %s (%s)\n", s.DisplayName, msg)
			return false, nil
		}
	}

	// Nothing of ours is running. Start under the declared id, else reuse
	// the id of our dead record, so references people saved keep working.
	id, replace := s.ID, false
	for _, sess := range mine {
		switch {
		case id == "":
			id, replace = sess.ID, true
		case sess.ID == id:
			replace = true
		default:
			// A dead record of ours under another id (the file's id
			// changed): it would be a stale duplicate next to the new one.
			if err := lifecycle.Remove(root, sess, 0); err != nil {
				return false, err
			}
		}
	}
	if s.ID != "" && !replace {
		if m, err := layout.At(root).Metadata(s.ID); err == nil && !owns(f, s, m) {
			return false, fmt.Errorf("session id %q is taken by a session that %s did not start: remove it (pty rm %s) or change the id", s.ID, f.Path, s.ID)
		}
	}
	l := f.Launch(s)
	dn := l.DisplayName
	if l.Scrollback == nil && replace {
		// Not declared: what the dead record had (from
		// $PTY_SCROLLBACK when it was first started), as restart keeps it.
		for _, sess := range mine {
			if sess.ID == id {
				l.Scrollback = sess.Meta.Scrollback
			}
		}
	}
	_, err = spawn.Start(ctx, root, spawn.Options{
		ID:             id,
		Command:        l.Command,
		Args:           l.Args,
		DisplayCommand: l.DisplayCommand,
		Cwd:            l.Cwd,
		Tags:           l.Tags,
		DisplayName:    &dn,
		ExtraEnv:       l.ExtraEnv,
		Scrollback:     l.Scrollback,
		Replace:        replace,
	})
	if err != nil {
		return false, err
	}
	fmt.Fprintf(o.Out, "● %s (started)\n", s.DisplayName)
	return true, nil
}

func owns(f *ptyfile.File, s ptyfile.Spec, m *layout.Metadata) bool {
	return f.Owns(m.Tags, s)
}

// syncTags writes the tag changes SyncTags computes, on condition that the
// session still belongs to this spec when its lock is held.
func syncTags(root string, f *ptyfile.File, s ptyfile.Spec, sess layout.Session, want map[string]string) ([]string, error) {
	next, changes, changed := ptyfile.SyncTags(sess.Meta.Tags, want)
	if !changed {
		return nil, nil
	}
	set := map[string]string{}
	for k, v := range next {
		if cur, ok := sess.Meta.Tags[k]; !ok || cur != v {
			set[k] = v
		}
	}
	var rm []string
	for k := range sess.Meta.Tags {
		if _, ok := next[k]; !ok {
			rm = append(rm, k)
		}
	}
	_, _, err := layout.At(root).SetTagsIf(sess.ID, func(tags map[string]string) bool {
		// Someone else re-tagged it in between: recompute rather than
		// overwrite their change with ours.
		return f.Owns(tags, s) && maps.Equal(tags, sess.Meta.Tags)
	}, set, rm)
	if errors.Is(err, layout.ErrConditionFailed) {
		cur, lerr := layout.At(root).Load(sess.ID)
		if lerr != nil {
			return nil, lerr
		}
		if !f.Owns(cur.Meta.Tags, s) {
			return nil, fmt.Errorf("session %s was re-tagged while up ran; run pty up again", sess.ID)
		}
		return syncTags(root, f, s, cur, want)
	}
	if err != nil {
		return nil, err
	}
	return changes, nil
}

// Down stops the sessions that came from f (only those of the given keys,
// when any are given) and removes their records. The permanent strategy
// tag goes first, so gc cannot respawn a session between its stop and its
// removal.
func Down(root string, f *ptyfile.File, keys []string, o Output) (stopped, failed int, err error) {
	owned, err := Owned(root, f)
	if err != nil {
		return 0, 0, err
	}
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	for _, k := range keys {
		if _, declared := f.Session(k); declared {
			continue
		}
		if !hasKey(owned, k) {
			return 0, 0, fmt.Errorf("%s declares no session %q and none of its sessions is named so (it declares: %s)", f.Path, k, strings.Join(f.Keys(), ", "))
		}
	}
	// Each key is stopped under its identity lock, with the registry read
	// again under it: an up or a gc respawn of the key that was under way
	// finishes first and what it started is stopped too, rather than left
	// running beside a down that reported success.
	for _, key := range downKeys(f, owned, keys) {
		s, f1, e := downKey(root, f, key, o)
		stopped, failed = stopped+s, failed+f1
		if e != nil {
			o.fail("sessions."+key, e)
			failed++
		}
	}
	fmt.Fprintf(o.Out, "Stopped %d %s.\n", stopped, plural(stopped, "session", "sessions"))
	return stopped, failed, nil
}

// downKeys is what down stops: the given keys, else every key the file
// declares or a session of it carries, in order.
func downKeys(f *ptyfile.File, owned []layout.Session, keys []string) []string {
	if len(keys) > 0 {
		return keys
	}
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if k != "" && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, k := range f.Keys() {
		add(k)
	}
	for _, sess := range owned {
		add(sess.Meta.Tags[layout.TagPtyfileSession])
	}
	return out
}

// downKey stops the sessions of one key under its identity lock.
func downKey(root string, f *ptyfile.File, key string, o Output) (stopped, failed int, err error) {
	l, err := fsx.AcquireLock(IdentityLock(root, f.Path, key), identityWait, rootdir.CheckPerms)
	if errors.Is(err, layout.ErrLockBusy) {
		return 0, 0, fmt.Errorf("another pty up is still starting this session (%w); try again", err)
	}
	if err != nil {
		return 0, 0, err
	}
	defer l.Release()
	owned, err := Owned(root, f)
	if err != nil {
		return 0, 0, err
	}
	for _, sess := range owned {
		if sess.Meta.Tags[layout.TagPtyfileSession] != key {
			continue
		}
		was, err := downOne(root, sess)
		name := sess.Name()
		if err != nil {
			o.fail(name, err)
			failed++
			continue
		}
		if was {
			stopped++
			fmt.Fprintf(o.Out, "○ %s (stopped)\n", name)
		} else {
			fmt.Fprintf(o.Out, "○ %s (was not running; removed)\n", name)
		}
	}
	return stopped, failed, nil
}

func downOne(root string, sess layout.Session) (wasRunning bool, err error) {
	if sess.Shown() == layout.Running {
		// Kill drops the strategy tag before it signals, and verifies
		// that nothing the session started outlives it.
		res, err := lifecycle.Kill(root, sess, lifecycle.KillOptions{})
		if err != nil && !errors.Is(err, client.ErrNotRunning) {
			return false, err
		}
		if len(res.Survivors) > 0 {
			return true, fmt.Errorf("processes %s survived the stop; record kept", lifecycle.FormatPids(res.Survivors))
		}
		wasRunning = err == nil
	} else if err := lifecycle.DropStrategy(root, sess.ID); err != nil {
		return false, err
	}
	cur, err := layout.At(root).Load(sess.ID)
	if errors.Is(err, layout.ErrNotFound) {
		return wasRunning, nil // ephemeral: its daemon removed it
	}
	if err != nil {
		return wasRunning, err
	}
	if cur.Shown() == layout.Running {
		return wasRunning, fmt.Errorf("session %s was started again while down ran; run pty down again", sess.ID)
	}
	return wasRunning, lifecycle.Remove(root, cur, 0)
}

func hasKey(ss []layout.Session, key string) bool {
	for _, s := range ss {
		if s.Meta.Tags[layout.TagPtyfileSession] == key {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
