package reconcile

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/ptyfile"
)

// claimSuffix names the file a gc pass holds while it respawns a session,
// so concurrent passes serialize. No session file ends this way (they end
// in .json, .events.jsonl, .sock, .pid, .lock, .events.lock, .launch,
// .daemon.log, .daemon.log.1), so no id can
// make a session's lock collide with another session's claim, as
// "<id>.gc.lock" would with session "<id>.gc".
const claimSuffix = ".gc-claim"

func claimPath(root, id string) string { return filepath.Join(root, id+claimSuffix) }

// sessionSuffixes are the files a session owns that can be left behind by
// a crash, longest first so ".events.lock" is not taken for ".lock".
var sessionSuffixes = []string{
	layout.SuffixEventsLock, layout.SuffixEvents, layout.SuffixMeta,
	layout.SuffixSock, layout.SuffixPid, layout.SuffixLock, claimSuffix, layout.SuffixLaunch,
	layout.SuffixDaemonLog, layout.SuffixDaemonLogOld,
}

func splitSessionFile(name string) (id, suffix string) {
	for _, s := range sessionSuffixes {
		if id, ok := strings.CutSuffix(name, s); ok && layout.ValidateID(id) == nil {
			return id, s
		}
	}
	return "", ""
}

// debris removes the files that no live process owns and no valid
// metadata explains: sockets, pid files, event logs and lock files of
// sessions whose <id>.json is missing or malformed, and temporary files
// of writers that died mid-write. Nothing younger than the grace period
// counts, because a starting daemon has its socket and pid file a moment
// before its metadata.
func (p *pass) debris() {
	root := p.o.Root
	cutoff := time.Now().Add(-p.o.DebrisGrace)
	groups := map[string][]os.DirEntry{}
	var tmps, idents []os.DirEntry
	for _, de := range p.snap.files {
		if de.IsDir() {
			continue
		}
		name := de.Name()
		if fsx.IsTemp(name) {
			tmps = append(tmps, de)
			continue
		}
		if strings.HasPrefix(name, ptyfile.IdentityLockPrefix) || strings.HasPrefix(name, registry.NameLockPrefix) {
			idents = append(idents, de)
			continue
		}
		id, suffix := splitSessionFile(name)
		if id == "" || p.snap.sessions[id] != nil {
			continue
		}
		if suffix == layout.SuffixMeta && !p.snap.invalid[id] {
			continue // appeared after the scan: a new session
		}
		groups[id] = append(groups[id], de)
	}

	ids := make([]string, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		files := groups[id]
		if !allOlder(files, cutoff) || ownerAlive(root, id) || locksHeld(root, files) {
			continue
		}
		if p.o.DryRun {
			for _, f := range files {
				p.emit(Action{Kind: KindDebris, ID: id, File: f.Name(), Message: "Would remove debris: " + f.Name()})
			}
			continue
		}
		var removed []string
		err := layout.At(root).Locked(id, 0, func() error {
			// Re-check now that nobody can be creating the session.
			if _, err := readMeta(root, id); err == nil || ownerAlive(root, id) {
				return errStale
			}
			for _, f := range files {
				if isLockFile(f.Name()) {
					// Locked reclaimed our own two stale locks already;
					// a stale claim goes the same way.
					if strings.HasSuffix(f.Name(), claimSuffix) {
						if l, err := fsx.AcquireLock(filepath.Join(root, f.Name()), 0, rootdir.CheckPerms); err == nil {
							l.Release()
						} else {
							continue
						}
					}
					removed = append(removed, f.Name())
					continue
				}
				err := os.Remove(filepath.Join(root, f.Name()))
				if err == nil {
					removed = append(removed, f.Name())
				} else if !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
			return nil
		})
		for _, f := range removed {
			p.emit(Action{Kind: KindDebris, ID: id, File: f, Message: "Removed debris: " + f})
		}
		if err != nil && !errors.Is(err, errStale) && !errors.Is(err, layout.ErrLockBusy) {
			p.emit(Action{Kind: KindFailed, ID: id, Reason: "debris", Error: err.Error(), Message: "Failed to remove debris of " + id + ": " + err.Error()})
		}
	}

	for _, de := range idents {
		// An up, down or respawn that died holding a pty.toml session's
		// identity lock left it (or a run -a or relaunch a name lock); taking it is the staleness check (a held
		// one is busy), and nothing else would ever remove it.
		name := de.Name()
		if !allOlder([]os.DirEntry{de}, cutoff) || locksHeld(root, []os.DirEntry{de}) {
			continue
		}
		if p.o.DryRun {
			p.emit(Action{Kind: KindDebris, File: name, Message: "Would remove debris: " + name})
			continue
		}
		if l, err := fsx.AcquireLock(filepath.Join(root, name), 0, rootdir.CheckPerms); err == nil {
			l.Release()
			p.emit(Action{Kind: KindDebris, File: name, Message: "Removed debris: " + name})
		}
	}

	for _, de := range tmps {
		name := de.Name()
		pid := tmpOwner(name)
		if pid <= 0 || !allOlder([]os.DirEntry{de}, cutoff) {
			continue
		}
		if fi, err := de.Info(); err != nil || proc.AliveSince(pid, fi.ModTime()) {
			continue // its writer is still at it
		}
		if p.o.DryRun {
			p.emit(Action{Kind: KindDebris, File: name, Message: "Would remove debris: " + name})
			continue
		}
		if err := os.Remove(filepath.Join(root, name)); err == nil {
			p.emit(Action{Kind: KindDebris, File: name, Message: "Removed debris: " + name})
		}
	}
}

func isLockFile(name string) bool {
	return strings.HasSuffix(name, layout.SuffixLock) || strings.HasSuffix(name, claimSuffix) ||
		strings.HasPrefix(name, ptyfile.IdentityLockPrefix) || strings.HasPrefix(name, registry.NameLockPrefix)
}

// locksHeld reports a lock file among files whose holder is alive (and
// took it: a process started after the lock file was written only reuses
// the pid): someone is working on that id right now.
func locksHeld(root string, files []os.DirEntry) bool {
	for _, f := range files {
		if !isLockFile(f.Name()) {
			continue
		}
		b, err := fsx.ReadFileNoFollow(filepath.Join(root, f.Name()))
		if err != nil {
			continue
		}
		fi, err := f.Info()
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && proc.AliveSince(pid, fi.ModTime()) {
			return true
		}
	}
	return false
}

// ownerAlive reports a live daemon for id: its pid file names a live
// process, or (with no pid file) its socket answers.
func ownerAlive(root, id string) bool {
	alive, _ := layout.At(root).DaemonAlive(id, "")
	return alive
}

func allOlder(files []os.DirEntry, cutoff time.Time) bool {
	for _, f := range files {
		fi, err := f.Info()
		if err != nil || fi.ModTime().After(cutoff) {
			return false
		}
	}
	return true
}

// tmpOwner returns the writer's pid from "<target>.tmp.<pid>.<rand>", the
// name layout writes (tempName) and the original pty both use.
func tmpOwner(name string) int {
	i := strings.LastIndex(name, ".tmp.")
	if i < 0 {
		return 0
	}
	pidStr, _, ok := strings.Cut(name[i+len(".tmp."):], ".")
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(pidStr)
	if err != nil {
		return 0
	}
	return pid
}
