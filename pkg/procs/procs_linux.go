//go:build linux

package procs

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// All reads every process from /proc. Processes that exit while we read
// are skipped.
func All() ([]Proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, ErrUnsupported
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		if p, ok := Lookup(pid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Lookup reads one process's /proc/<pid>/stat.
func Lookup(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	return parseStat(pid, b)
}

func parseStat(pid int, b []byte) (Proc, bool) {
	state, start := StatField(b, 3), StatField(b, 22)
	if state == nil || start == nil {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(string(StatField(b, 4)))
	pgid, _ := strconv.Atoi(string(StatField(b, 5)))
	return Proc{Pid: pid, PPid: ppid, Pgid: pgid, Start: string(start), Zombie: string(state) == "Z" || string(state) == "X"}, true
}

// StatField returns field n of a /proc/<pid>/stat's contents, numbered as
// in proc(5) from 3 (the state) on, or nil. The fields are those after
// the command name, which is in parentheses and may itself hold ") ": the
// last ')' ends it. It allocates nothing, for the daemon's STATUS.
func StatField(stat []byte, n int) []byte {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || n < 3 {
		return nil
	}
	return Field(stat[i+1:], n-3)
}

// Field returns the i'th (from 0) of line's fields, separated by spaces
// and tabs, up to its end or its first newline; nil when there are fewer.
func Field(line []byte, i int) []byte {
	for {
		for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			line = line[1:]
		}
		if len(line) == 0 || line[0] == '\n' {
			return nil
		}
		end := bytes.IndexAny(line, " \t\n")
		if end < 0 {
			end = len(line)
		}
		if i == 0 {
			return line[:end]
		}
		line, i = line[end:], i-1
	}
}

// Comm returns a process's command name (at most 15 bytes, as the kernel
// keeps it), or "" when it cannot be read.
func Comm(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}

// Ignores reports whether process p ignores sig (SIG_IGN), from the
// SigIgn mask of /proc/<pid>/status; ok is false when that cannot be
// read (p is gone, or is not the same process any more).
func Ignores(p Proc, sig syscall.Signal) (ignored, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/status")
	if err != nil || !Still(p) {
		return false, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, found := strings.CutPrefix(line, "SigIgn:"); found {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil || sig < 1 || sig > 64 {
				return false, false
			}
			return mask&(1<<(uint(sig)-1)) != 0, true
		}
	}
	return false, false
}

// clockTick is the unit of /proc/<pid>/stat's start time: USER_HZ, which
// the kernel fixes at 100 for everything it reports to user space.
const clockTick = 10 * time.Millisecond

// StartTime converts p's start token to wall-clock time. The token counts
// ticks since boot (suspend included), so the boot instant is taken from
// CLOCK_BOOTTIME now; the result is exact to a tick as long as the wall
// clock was not stepped since the process started.
func StartTime(p Proc) (time.Time, bool) {
	ticks, err := strconv.ParseInt(p.Start, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts) != nil {
		return time.Time{}, false
	}
	now := time.Now()
	sinceBoot := time.Duration(ts.Nano())
	return now.Add(-sinceBoot + time.Duration(ticks)*clockTick), true
}

// Cmdline returns a process's arguments. A zombie's (and a kernel
// thread's) are empty: they are released with its memory.
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, err
	}
	return SplitNul(b), nil
}

// Environ returns the environment a process was started with, as
// NUL-terminated KEY=VALUE entries. Only the process's owner (or root) may
// read it.
func Environ(pid int) ([]byte, error) {
	return os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
}

// signalPid sends sig to pid only if check, run after the pid is pinned,
// approves it. A pidfd pins the process: if pid is reused after the
// check, the signal goes to the pinned (dead) process and fails instead of
// reaching the newcomer.
func signalPid(pid int, sig syscall.Signal, check func() bool) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return err
		}
		// No pidfds (before Linux 5.3, or a seccomp filter): check, then
		// signal, with the small window that leaves.
		if !check() {
			return ErrNotSame
		}
		return syscall.Kill(pid, sig)
	}
	defer unix.Close(fd)
	if !check() {
		return ErrNotSame
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}
