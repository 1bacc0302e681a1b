// Package leftovers finds and stops what a session left running when its
// daemon died without stopping it.
package leftovers

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

// A daemon that dies without shutting down (SIGKILL, OOM, a crash) cannot
// stop its session's processes: they are reparented and run on, no longer
// in any daemon's tree. What still ties them to the session is the
// environment its daemon gave them: PTY_SESSION=<id>,
// PTY_SESSION_GENERATION=<generation> and PTY_ROOT=<root>, inherited by
// everything they start. A process is a leftover of a session only if it
// is ours (same uid), carries the session's id and generation (and, when
// it has PTY_ROOT, the session's root), is not a session daemon itself (a
// session started from inside this one), and started no earlier than the
// generation did: nothing older can descend from it.

// TERM, then KILL for what is still there after termGrace.
const (
	termGrace = 1 * time.Second
	killGrace = 1 * time.Second
)

// leftoverSlack allows for the tick granularity of a start time.
const leftoverSlack = time.Second

// Leftover rounds: a leftover may start a process between our scan and
// our signal, so the scan is repeated until it comes back empty.
const leftoverRounds = 3

// Result says what stopping a dead session's leftovers did.
type Result struct {
	// Stopped counts the leftover processes that are gone now.
	Stopped int
	// Survivors are leftover pids still running after TERM and KILL.
	Survivors []int
}

// Index holds, from one scan of the process table, the processes that
// carry a session generation in their environment, so a gc pass over many
// dead sessions reads /proc once.
type Index struct {
	byGen map[string][]candidate
	// keepGroups are the process groups of this process and its
	// ancestors, never signalled as a whole.
	keepGroups []int
}

type candidate struct {
	proc procs.Proc
	id   string
	root string // PTY_ROOT, or "" when the process has none
}

// Scan reads the environment of every process of this user. A
// system without /proc has no index: procs.ErrUnsupported.
func Scan() (*Index, error) {
	all, err := procs.All()
	if err != nil {
		return nil, err
	}
	uid := os.Getuid()
	skip := selfAndAncestors(all)
	x := &Index{byGen: map[string][]candidate{}}
	for _, p := range all {
		if skip[p.Pid] {
			x.keepGroups = append(x.keepGroups, p.Pgid)
		}
	}
	for _, p := range all {
		if p.Zombie || skip[p.Pid] || p.Pid <= 1 {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+strconv.Itoa(p.Pid), &st) != nil || int(st.Uid) != uid {
			continue
		}
		env, err := procs.Environ(p.Pid)
		if err != nil {
			continue
		}
		var id, gen, root string
		for _, kv := range procs.SplitNul(env) {
			switch {
			case len(kv) > 12 && kv[:12] == "PTY_SESSION=":
				id = kv[12:]
			case len(kv) > 23 && kv[:23] == "PTY_SESSION_GENERATION=":
				gen = kv[23:]
			case len(kv) > 9 && kv[:9] == "PTY_ROOT=":
				root = kv[9:]
			}
		}
		if id == "" || gen == "" {
			continue
		}
		if args, err := procs.Cmdline(p.Pid); err != nil || len(args) == 0 || filepath.Base(args[0]) == layout.DaemonName {
			continue // gone, or a daemon: a session of its own
		}
		x.byGen[gen] = append(x.byGen[gen], candidate{proc: p, id: id, root: root})
	}
	return x, nil
}

// For returns the leftovers of session id in root whose record is m.
// A record without a generation (the original pty's) cannot be told from
// another root's session of the same id, so it has none.
func (x *Index) For(root, id string, m *layout.Metadata) []procs.Proc {
	if x == nil || m == nil || m.Generation == "" {
		return nil
	}
	born := layout.ParseTime(m.CreatedAt)
	var out []procs.Proc
	for _, c := range x.byGen[m.Generation] {
		if c.id != id || (c.root != "" && !rootdir.Same(c.root, root)) {
			continue
		}
		if !born.IsZero() {
			start, ok := procs.StartTime(c.proc)
			if !ok || start.Before(born.Add(-leftoverSlack)) {
				continue
			}
		}
		out = append(out, c.proc)
	}
	return out
}

// selfAndAncestors: `pty kill` run from a leftover shell must not stop
// itself or the shell that runs it.
func selfAndAncestors(all []procs.Proc) map[int]bool {
	parent := make(map[int]int, len(all))
	for _, p := range all {
		parent[p.Pid] = p.PPid
	}
	out := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !out[pid]; pid = parent[pid] {
		out[pid] = true
	}
	return out
}

// Stop stops what is left of session id (record m) in root, whose daemon
// is gone: the processes found by Scan, each TERM, then KILL for those
// still the same process a second later. Only a session whose daemon is
// gone may be passed: a live daemon's processes are its own to stop, and
// if one of the processes found is a child of the session's daemon after
// all, nothing is stopped.
func Stop(root, id string, m *layout.Metadata) (Result, error) {
	var res Result
	var left []procs.Proc
	for range leftoverRounds {
		x, err := Scan()
		if errors.Is(err, procs.ErrUnsupported) {
			return res, nil
		}
		if err != nil {
			return res, errors.New("session " + id + ": look for leftover processes: " + err.Error())
		}
		found := x.For(root, id, m)
		if len(found) == 0 {
			break
		}
		for _, p := range found {
			if layout.At(root).VerifyDaemon(p.PPid, id, m.Generation) {
				// Its daemon is alive after all (it was misjudged or
				// has just been identified): they are its to stop.
				return res, nil
			}
		}
		procs.Signal(found, syscall.SIGTERM, x.keepGroups...)
		if !procs.WaitGone(found, termGrace) {
			procs.Signal(found, syscall.SIGKILL, x.keepGroups...)
			procs.WaitGone(found, killGrace)
		}
		for _, p := range found {
			if procs.Still(p) {
				left = append(left, p)
			} else {
				res.Stopped++
			}
		}
		if len(procs.Survivors(left)) > 0 {
			break // unkillable (stopped in the kernel): scanning again finds them again
		}
	}
	res.Survivors = procs.Pids(procs.Survivors(left))
	return res, nil
}

// Message is what kill and rm say about stopped leftovers.
func Message(id string, n int) string {
	w := "processes"
	if n == 1 {
		w = "process"
	}
	return "Session " + strconv.Quote(id) + ": daemon was gone; stopped " + strconv.Itoa(n) + " leftover " + w + "."
}
