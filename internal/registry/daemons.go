package registry

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

// A LiveDaemon is a running session daemon found by its identity
// (DaemonArgs), whatever is left of its session's files.
type LiveDaemon struct {
	ID, Generation string
	Proc           procs.Proc // its pid and start, to tell it from a later holder of the pid
}

// Daemons lists this user's live session daemons of root, found in the
// process table by their arguments and each proven by
// layout.Registry.VerifyDaemon: a daemon whose socket, pid file and
// record are gone, or whose whole root is, is still found. Where there is
// no process table: procs.ErrUnsupported.
func Daemons(root string) ([]LiveDaemon, error) {
	all, err := procs.All()
	if err != nil {
		return nil, err
	}
	var found []LiveDaemon
	for _, p := range all {
		if p.Zombie || !ownProcess(p.Pid) {
			continue
		}
		args, err := procs.Cmdline(p.Pid)
		if err != nil || len(args) != 4 || filepath.Base(args[0]) != layout.DaemonName {
			continue
		}
		id, gen, r := args[1], args[2], args[3]
		if filepath.Clean(r) != filepath.Clean(root) && !rootdir.Same(r, root) {
			continue
		}
		if layout.At(r).VerifyDaemon(p.Pid, id, gen) && procs.Still(p) {
			found = append(found, LiveDaemon{ID: id, Generation: gen, Proc: p})
		}
	}
	// A daemon's child between its fork and its exec still carries the
	// daemon's arguments: it is the session's program being started, not
	// a daemon, and is known by its parent having the same identity.
	byPid := make(map[int]LiveDaemon, len(found))
	for _, d := range found {
		byPid[d.Proc.Pid] = d
	}
	var out []LiveDaemon
	for _, d := range found {
		if parent, ok := byPid[d.Proc.PPid]; ok && parent.ID == d.ID && parent.Generation == d.Generation {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// DaemonOf finds the live daemon of generation gen of session id in root
// (see Daemons), and reports whether there is one.
func DaemonOf(root, id, gen string) (LiveDaemon, bool) {
	ds, _ := Daemons(root)
	for _, d := range ds {
		if d.ID == id && d.Generation == gen {
			return d, true
		}
	}
	return LiveDaemon{}, false
}

// ownProcess reports whether pid is this user's, where /proc says (a
// process of another user is never ours to signal, even for root).
func ownProcess(pid int) bool {
	fi, err := os.Stat("/proc/" + strconv.Itoa(pid))
	if err != nil {
		return true // no /proc: ps lists everyone's, kill(2) refuses others'
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}
