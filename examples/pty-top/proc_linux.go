//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// notAvailable is what the CPU and memory columns say when /proc could not
// tell (a process that ended between two reads, or smaps_rollup refused).
const notAvailable = "n/a"

// clockTicks is USER_HZ, the unit of /proc's CPU times. The kernel fixes
// it at 100 for user space on every architecture Go supports, whatever
// its internal tick rate, so it needs no sysconf (and no cgo).
const clockTicks = 100

// proc is one process as /proc/PID/stat describes it.
type proc struct {
	pid, ppid int
	start     uint64 // ticks after boot
	cpu       uint64 // utime+stime, ticks
}

// startedAfter reports whether p started after t.
func (p proc) startedAfter(t time.Time) bool {
	b := bootTime()
	if b.IsZero() {
		return false
	}
	return b.Add(time.Duration(p.start) * time.Second / clockTicks).After(t)
}

// readProcs reads every process's stat. One that ends while we read is
// left out; zombies are left out too, as they use nothing.
func readProcs() (map[int]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[int]proc, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		if p, ok := parseStat(pid, b); ok {
			out[pid] = p
		}
	}
	return out, nil
}

// parseStat reads /proc/PID/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields
// are counted from the last ')'.
func parseStat(pid int, b []byte) (proc, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): ppid is field 4, utime 14, stime 15,
	// starttime 22.
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	ut, err2 := strconv.ParseUint(f[11], 10, 64)
	st, err3 := strconv.ParseUint(f[12], 10, 64)
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, start: start, cpu: ut + st}, true
}

// readPss returns a process's proportional set size in bytes from
// /proc/PID/smaps_rollup (Linux 4.14 and later): its private pages plus
// its share of each page it shares, so that the Pss of all processes adds
// up to the memory they use together. RSS would count a shared page (the
// pty-daemon binary's code, mapped by every session) once per process.
func readPss(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "Pss:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, err
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no Pss line in smaps_rollup")
}

var bootTime = sync.OnceValue(func() time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
})
