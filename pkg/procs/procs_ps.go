//go:build !linux

package procs

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// All asks ps for the process table; without /proc (macOS, the BSDs) it is
// the portable way. lstart is the start time to the second, which with the
// pid identifies a process well enough for kill's purpose.
func All() ([]Proc, error) {
	return ps("-axo", "pid=,ppid=,pgid=,stat=,lstart=")
}

// Lookup asks ps about one process.
func Lookup(pid int) (Proc, bool) {
	ps, err := ps("-o", "pid=,ppid=,pgid=,stat=,lstart=", "-p", strconv.Itoa(pid))
	if err != nil || len(ps) != 1 || ps[0].Pid != pid {
		return Proc{}, false
	}
	return ps[0], true
}

func ps(args ...string) ([]Proc, error) {
	out, err := exec.Command("ps", args...).Output()
	if err != nil && len(out) == 0 {
		// ps exits 1 when -p names no process: that is an empty table.
		if _, ok := err.(*exec.ExitError); ok {
			return nil, nil
		}
		return nil, ErrUnsupported
	}
	var procs []Proc
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		pid, err1 := strconv.Atoi(f[0])
		ppid, err2 := strconv.Atoi(f[1])
		pgid, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		procs = append(procs, Proc{Pid: pid, PPid: ppid, Pgid: pgid, Start: strings.Join(f[4:], " "), Zombie: strings.HasPrefix(f[3], "Z")})
	}
	return procs, nil
}

// Comm returns a process's command name, or "" when it cannot be read.
func Comm(pid int) string {
	out, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// StartTime parses ps's lstart ("Mon Jan  2 15:04:05 2006", local time).
func StartTime(p Proc) (time.Time, bool) {
	t, err := time.ParseInLocation("Mon Jan _2 15:04:05 2006", p.Start, time.Local)
	return t, err == nil
}

// Cmdline returns a process's arguments as ps shows them: joined by
// spaces, so an argument with a space in it comes back split.
func Cmdline(pid int) ([]string, error) {
	out, err := exec.Command("ps", "-ww", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// Ignores is not known without /proc: ok is false.
func Ignores(p Proc, sig syscall.Signal) (ignored, ok bool) { return false, false }

// Environ is not available without /proc.
func Environ(pid int) ([]byte, error) { return nil, ErrUnsupported }

func signalPid(pid int, sig syscall.Signal, check func() bool) error {
	if !check() {
		return ErrNotSame
	}
	return syscall.Kill(pid, sig)
}
