package main

// Workloads where sessions are many: listing them, and what each idle one
// costs in memory. pty keeps one daemon per session, tmux one server for
// all, so memory is compared per session: the sum over pty's daemons
// against tmux's server, both divided by the number of sessions.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// scaleCounts are the registry sizes of the list and memory workloads.
var scaleCounts = []int{3, 50, 200}

// listWorkload times `pty list` against `tmux list-sessions` with a few,
// 50 and 200 idle sessions each, the floor (bench/floor.go) beside it.
// Besides the wall time it reports the CPU time a listing costs, which a
// loaded machine distorts far less: for pty the listing process's
// (dispatcher and pty-list), for tmux its client's plus what its server
// spent answering.
func (e *env) listWorkload() {
	fmt.Printf("\n== list the sessions (median of %d) ==\n", e.starts)
	e.atScale(func(n int) {
		server := 0
		if out, err := e.tmuxScale("display-message", "-p", "#{pid}").Output(); err == nil {
			server, _ = strconv.Atoi(strings.TrimSpace(string(out)))
		}
		var p, d, t, pc, dc, tc, two, one, fc []time.Duration
		for i := 0; i < e.starts; i++ {
			w, c := timeCPU(e.ptyCmd("list"))
			p, pc = append(p, w), append(pc, c)
			w, c = timeCPU(exec.Command(e.floor, "again"))
			two, fc = append(two, w), append(fc, c)
			w, c = timeCPU(e.ptyCmd2("pty-list"))
			d, dc = append(d, w), append(dc, c)
			one = append(one, e.floorOnce(false))
			before := schedNS(server)
			w, c = timeCPU(e.tmuxScale("list-sessions"))
			t, tc = append(t, w), append(tc, c+schedNS(server)-before)
		}
		reportFloor(fmt.Sprintf("%d sessions: pty list / list-sessions", n), map[string]time.Duration{"pty": medianOf(p), "floor": medianOf(two), "tmux": medianOf(t)})
		reportFloor(fmt.Sprintf("%d sessions: pty-list run directly", n), map[string]time.Duration{"pty": medianOf(d), "floor": medianOf(one), "tmux": medianOf(t)})
		reportFloor(fmt.Sprintf("%d sessions: CPU, pty list", n), map[string]time.Duration{"pty": medianOf(pc), "floor": medianOf(fc), "tmux": medianOf(tc)})
		report(fmt.Sprintf("%d sessions: CPU, pty-list directly", n), map[string]time.Duration{"pty": medianOf(dc), "tmux": medianOf(tc)})
	})
}

// timeCPU runs c and returns its wall time and the CPU time (user and
// system) it used.
func timeCPU(c *exec.Cmd) (wall, cpu time.Duration) {
	wall = timeCmd(c)
	if c.ProcessState != nil {
		cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	return wall, cpu
}

// schedNS is the CPU time a process has run so far (its main thread's, from
// /proc/PID/schedstat, in nanoseconds).
func schedNS(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	ns, _ := strconv.ParseInt(f[0], 10, 64)
	return time.Duration(ns)
}

// memWorkload reports the memory of a few, 50 and 200 idle sessions, per
// session: Pss (what the session's processes cost with shared pages split
// among their users) and Private_Dirty (what no other process shares),
// from /proc/PID/smaps_rollup. The sessions' own `sleep` commands are
// alike for both tools and left out: pty's daemons against tmux's server.
// The floor is as many Go programs that only wait for a signal
// (bench/floor.go), per program; "1 proc" is the same program run with
// GOMAXPROCS=1, as the daemon runs, which on a machine of more than one
// processor is less.
func (e *env) memWorkload() {
	fmt.Printf("\n== memory of idle sessions, per session (Pss and Private_Dirty from smaps_rollup) ==\n")
	// Freshly built binaries are dirty in the page cache, which smaps
	// counts as the daemons' dirty pages until they are written back.
	syscall.Sync()
	var idle, idle1 []*exec.Cmd
	defer func() {
		for _, c := range append(idle, idle1...) {
			c.Process.Kill()
			c.Wait()
		}
	}()
	e.atScale(func(n int) {
		for len(idle) < n {
			c := exec.Command(e.idle)
			check(c.Start())
			idle = append(idle, c)
			c = exec.Command(e.idle)
			c.Env = append(os.Environ(), "GOMAXPROCS=1")
			check(c.Start())
			idle1 = append(idle1, c)
		}
		// Let start-up garbage be collected and returned as it would be
		// in a session left alone.
		time.Sleep(3 * time.Second)
		pss, priv := smapsSum(e.ptyDaemons())
		tp, tpriv := e.tmuxServerSmaps()
		pidsOf := func(cs []*exec.Cmd) []int {
			var pids []int
			for _, c := range cs {
				pids = append(pids, c.Process.Pid)
			}
			return pids
		}
		fp, fpriv := smapsSum(pidsOf(idle))
		f1p, f1priv := smapsSum(pidsOf(idle1))
		per := func(kb int) float64 { return float64(kb) / 1024 / float64(n) }
		fmt.Printf("  %3d sessions, Pss per session       pty %6.3f MB   floor %6.3f MB (1 proc %6.3f)   tmux %6.3f MB   pty/tmux %.1f   pty-floor %4.0f kB\n", n, per(pss), per(fp), per(f1p), per(tp), ratio(float64(pss), float64(tp)), float64(pss-fp)/float64(n))
		fmt.Printf("  %3d sessions, Private_Dirty/session pty %6.3f MB   floor %6.3f MB (1 proc %6.3f)   tmux %6.3f MB   pty/tmux %.1f   pty-floor %4.0f kB\n", n, per(priv), per(fpriv), per(f1priv), per(tpriv), ratio(float64(priv), float64(tpriv)), float64(priv-fpriv)/float64(n))
		if n == scaleCounts[len(scaleCounts)-1] {
			e.memAttached(50, n)
		}
	})
}

// memAttached attaches a terminal to each of the first n of the total
// sessions, types a line, detaches, and reports what they cost then: a
// session somebody looked at once is the common case, and what an attach
// leaves behind stays for the session's life. pty's figure is the mean of
// those n daemons, tmux's its server's over all its sessions.
func (e *env) memAttached(n, total int) {
	visit := func(c *exec.Cmd, detach string) {
		f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 24, Cols: 80})
		check(err)
		go io.Copy(io.Discard, f)
		time.Sleep(300 * time.Millisecond)
		f.Write([]byte("typed while attached\r"))
		time.Sleep(200 * time.Millisecond)
		f.Write([]byte(detach))
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			c.Process.Kill()
			<-done
		}
		f.Close()
	}
	for i := 0; i < n; i++ {
		id := "sc" + strconv.Itoa(i)
		visit(e.ptyCmd2("pty-attach", id), "\x1c")
		visit(e.tmuxScale("attach-session", "-t", id), "\x02d")
	}
	time.Sleep(3 * time.Second)
	var pids []int
	for i := 0; i < n; i++ {
		if pid, ok := pidFile(filepath.Join(e.root, "sc"+strconv.Itoa(i)+".pid")); ok {
			pids = append(pids, pid)
		}
	}
	pss, priv := smapsSum(pids)
	tp, tpriv := e.tmuxServerSmaps()
	per := func(kb, k int) float64 { return float64(kb) / 1024 / float64(k) }
	fmt.Printf("  %3d attached once, Pss per session  pty %6.3f MB   tmux %6.3f MB   pty/tmux %.1f\n", n, per(pss, n), per(tp, total), ratio(per(pss, n), per(tp, total)))
	fmt.Printf("  %3d attached once, Private_Dirty    pty %6.3f MB   tmux %6.3f MB   pty/tmux %.1f\n", n, per(priv, n), per(tpriv, total), ratio(per(priv, n), per(tpriv, total)))
}

// atScale runs f with n idle `sleep` sessions in pty and in a private tmux
// server, for each of scaleCounts, adding sessions as n grows; the
// sessions are removed afterwards.
func (e *env) atScale(f func(n int)) {
	have := 0
	defer func() {
		e.tmuxScale("kill-server").Run()
		for i := 0; i < have; i++ {
			id := "sc" + strconv.Itoa(i)
			e.ptyCmd2("pty-kill", id).Run()
			e.ptyCmd2("pty-rm", id).Run()
		}
	}()
	for _, n := range scaleCounts {
		for ; have < n; have++ {
			id := "sc" + strconv.Itoa(have)
			c := e.ptyCmd2("pty-run", "-d", "--id", id, "--", "sleep", "100000")
			c.Stderr = os.Stderr
			check(c.Run())
			c = e.tmuxScale("new-session", "-d", "-s", id, "sleep", "100000")
			c.Stderr = os.Stderr
			check(c.Run())
		}
		f(n)
	}
}

// ptyCmd2 runs one of the pty-* programs directly, without the dispatcher.
func (e *env) ptyCmd2(prog string, args ...string) *exec.Cmd {
	c := e.ptyCmd(args...)
	c.Path = filepath.Join(e.bin, prog)
	c.Args = append([]string{prog}, args...)
	return c
}

func (e *env) tmuxScale(args ...string) *exec.Cmd {
	c := e.tmux(args...)
	c.Args[2] = e.tmuxSock + "scale"
	return c
}

// ptyDaemons returns the pids of the running daemons of the registry, as
// their pid files name them.
func (e *env) ptyDaemons() []int {
	files, _ := filepath.Glob(filepath.Join(e.root, "*.pid"))
	var out []int
	for _, p := range files {
		if pid, ok := pidFile(p); ok {
			out = append(out, pid)
		}
	}
	return out
}

// pidFile reads the pid a pid file names.
func pidFile(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil
}

// smapsSum adds up the Pss and Private_Dirty of pids, in KB.
func smapsSum(pids []int) (pss, privDirty int) {
	for _, pid := range pids {
		a, b := smapsKB(pid)
		pss, privDirty = pss+a, privDirty+b
	}
	return pss, privDirty
}

// tmuxServerSmaps is the private tmux server's Pss and Private_Dirty in KB.
func (e *env) tmuxServerSmaps() (pss, privDirty int) {
	out, err := e.tmuxScale("display-message", "-p", "#{pid}").Output()
	if err != nil {
		return 0, 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return smapsKB(pid)
}

// smapsKB returns a process's Pss and Private_Dirty in KB.
func smapsKB(pid int) (pss, privDirty int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "Pss:":
			pss = v
		case "Private_Dirty:":
			privDirty = v
		}
	}
	return pss, privDirty
}
