// Package procs takes snapshots of a process tree and later tells which of
// those processes are still the same processes. `pty kill` needs both: it
// must find what a session started before it stops the daemon (afterwards
// the tree is gone, reparented to init), and it must never signal a pid
// that the kernel has meanwhile handed to an unrelated program.
package procs

import (
	"errors"
	"os"
	"slices"
	"sort"
	"syscall"
	"time"
)

// Proc is one process as seen at snapshot time.
type Proc struct {
	Pid, PPid, Pgid int
	// Start identifies this incarnation of Pid: the start time in clock
	// ticks since boot on Linux (/proc/<pid>/stat field 22), the start
	// timestamp elsewhere. A pid with a different Start is another
	// process.
	Start  string
	Zombie bool
}

// ErrUnsupported is returned where no process table can be read.
var ErrUnsupported = errors.New("process table not available on this system")

// Tree returns root and all its descendants, root first, then in pid
// order. A root that does not exist gives an empty slice.
func Tree(root int) ([]Proc, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	byPid := make(map[int]Proc, len(all))
	children := map[int][]int{}
	for _, p := range all {
		byPid[p.Pid] = p
		children[p.PPid] = append(children[p.PPid], p.Pid)
	}
	r, ok := byPid[root]
	if !ok {
		return nil, nil
	}
	out := []Proc{r}
	seen := map[int]bool{root: true}
	queue := []int{root}
	var desc []Proc
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c] {
				continue // a pid cycle cannot happen, but a racy read could fake one
			}
			seen[c] = true
			desc = append(desc, byPid[c])
			queue = append(queue, c)
		}
	}
	sort.Slice(desc, func(i, j int) bool { return desc[i].Pid < desc[j].Pid })
	return append(out, desc...), nil
}

// Prune returns ps without the processes cut selects and everything below
// them (by parent links within ps).
func Prune(ps []Proc, cut func(Proc) bool) []Proc {
	out := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for _, p := range ps {
			if !out[p.Pid] && (out[p.PPid] || cut(p)) {
				out[p.Pid] = true
				changed = true
			}
		}
	}
	kept := make([]Proc, 0, len(ps))
	for _, p := range ps {
		if !out[p.Pid] {
			kept = append(kept, p)
		}
	}
	return kept
}

// Still reports whether p is still running as the same process: same pid,
// same start token, and not a zombie (a zombie holds nothing and will
// never act again). A process that cannot be read is gone.
func Still(p Proc) bool {
	cur, ok := Lookup(p.Pid)
	return ok && cur.Start == p.Start && !cur.Zombie
}

// Survivors returns the processes of a snapshot that are Still running.
func Survivors(snap []Proc) []Proc {
	var out []Proc
	for _, p := range snap {
		if Still(p) {
			out = append(out, p)
		}
	}
	return out
}

// WaitGone waits, with backoff, until none of the processes in snap is
// still the same process, or timeout passes; it reports whether they
// all went.
func WaitGone(snap []Proc, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for delay := 5 * time.Millisecond; ; {
		if len(Survivors(snap)) == 0 {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(delay, time.Until(deadline)+time.Millisecond))
		if delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// Groups returns the process groups of ps that are safe to signal as a
// whole: never this process's own group, never the excluded ones, never
// 0 or 1 (kill(-1) and init's group would hit far more than a session).
func Groups(ps []Proc, exclude ...int) []int {
	skip := map[int]bool{syscall.Getpgrp(): true}
	for _, g := range exclude {
		skip[g] = true
	}
	seen := map[int]bool{}
	var out []int
	for _, p := range ps {
		if p.Pgid <= 1 || skip[p.Pgid] || seen[p.Pgid] {
			continue
		}
		seen[p.Pgid] = true
		out = append(out, p.Pgid)
	}
	sort.Ints(out)
	return out
}

// Pids returns the pids of ps.
func Pids(ps []Proc) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Pid
	}
	return out
}

// selfPid lets Groups-like callers avoid signalling themselves.
var selfPid = os.Getpid()

// Signal sends sig once to each survivor of snap: to their safe process
// groups as wholes (which also reaches what a group started since the
// snapshot), and one by one to those not in a group signalled here. It
// returns the groups it signalled, for a caller that signals again as
// new processes appear and passes them back as excludeGroups, so that
// the members it already reached are not hit again. Once matters: a
// program that stops gently on the first SIGHUP or SIGTERM stops hard on
// a second (bash dies without its history; a server drops its draining).
// Each pid is re-verified as the same process (start token) while it is
// pinned, so a recycled pid is never hit; a group is signalled only while
// a verified member keeps its id in use. Errors are ignored: a process
// that is gone is what we wanted.
func Signal(snap []Proc, sig syscall.Signal, excludeGroups ...int) []int {
	live := Survivors(snap)
	groups := Groups(live, excludeGroups...)
	for _, g := range groups {
		syscall.Kill(-g, sig)
	}
	for _, p := range live {
		if p.Pid <= 1 || p.Pid == selfPid {
			continue
		}
		SignalIf(p.Pid, sig, func() bool {
			// Its group now, not the snapshot's: a shell's child may
			// have moved to a group of its own since.
			cur, ok := Lookup(p.Pid)
			return ok && cur.Start == p.Start && !cur.Zombie && !slices.Contains(groups, cur.Pgid)
		})
	}
	return groups
}

// ErrNotSame is returned by SignalIf when the check refused the process.
var ErrNotSame = errors.New("process is not the one expected")

// SignalIf sends sig to pid only if check approves the process that holds
// pid at the moment of sending. Where pidfds exist (Linux 5.3 on) the
// process is pinned before check runs, so a pid recycled after the check
// cannot receive the signal; elsewhere check runs just before kill(2).
// check reads /proc/<pid> (or ps) by pid, and so sees the pinned process
// as long as it lives.
func SignalIf(pid int, sig syscall.Signal, check func() bool) error {
	if pid <= 1 || pid == selfPid {
		return ErrNotSame
	}
	return signalPid(pid, sig, check)
}

// SplitNul splits NUL-terminated strings (/proc's cmdline and environ).
func SplitNul(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		out = append(out, string(b[:i]))
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return out
}
