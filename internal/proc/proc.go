// Package proc answers whether a process lives, and whether it is still
// the one that wrote a file: the probes behind every pid pty trusts (lock
// holders, temporary files, a session's daemon). pkg/layout builds the
// daemon's identification on them; it lives apart so that layout's public
// API does not carry it. Nothing here may use fmt or reflect: the session
// daemon links it.
package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptyorg/pty/pkg/procs"
)

// StartSlack allows for the tick granularity of a process's start time
// and the rounding between it and a file's mtime.
const StartSlack = time.Second

// Alive reports whether a process exists. EPERM means it exists but
// belongs to someone else, which still counts as alive.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !isZombie(pid)
}

// isZombie reports a process that has exited but not been reaped; it holds
// no resources and will never act again, so it is not alive. Only Linux
// exposes this cheaply; elsewhere a zombie counts as alive.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name, which may itself
	// contain parentheses: take the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// AliveSince reports whether pid is alive and is still the process that
// wrote a file at t: a pid written into a lock or a temporary file's name
// is its writer's, and a process that started after t got the pid later
// (after a crash or a reboot the kernel hands it to anyone), so it does
// not hold the file. Without /proc, a live pid counts.
func AliveSince(pid int, t time.Time) bool {
	if !Alive(pid) {
		return false
	}
	if !Mounted() {
		return true
	}
	p, ok := procs.Lookup(pid)
	if !ok || p.Zombie {
		return false
	}
	start, ok := procs.StartTime(p)
	return !ok || !start.After(t.Add(StartSlack))
}

var (
	mountedOnce sync.Once
	mounted     bool
)

// Mounted reports whether /proc can identify processes here.
func Mounted() bool {
	mountedOnce.Do(func() {
		_, err := os.Stat("/proc/self/cmdline")
		mounted = err == nil
	})
	return mounted
}
