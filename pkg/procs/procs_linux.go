//go:build linux

package procs

import (
	"os"
	"strconv"
	"strings"
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
	return parseStat(pid, string(b))
}

// parseStat reads fields after the command name, which is in parentheses
// and may itself contain ") " : the last ')' ends it.
func parseStat(pid int, s string) (Proc, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return Proc{}, false
	}
	// Fields from 3 (state) on; field n is f[n-3].
	f := strings.Fields(s[i+2:])
	if len(f) < 20 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return Proc{Pid: pid, PPid: ppid, Pgid: pgid, Start: f[19], Zombie: f[0] == "Z" || f[0] == "X"}, true
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
