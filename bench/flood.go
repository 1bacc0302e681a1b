package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"
)

// --- flood: seq 1 1000000 in an attached 50x200 session ---

// floodMark is what the session prints once the flood is over.
const floodMark = "flood-end"

func (e *env) floodWorkload() {
	fmt.Printf("\n== seq 1 1000000 in an attached 50x200 session (median of %d rounds) ==\n", e.rounds)
	fmt.Println("   time until the end of the flood shows, bytes written to the terminal, CPU of the client and of the session holder")
	type sample struct {
		d             time.Duration
		bytes         int
		client, owner time.Duration
	}
	samples := map[string][]sample{}
	for r := 0; r < e.rounds; r++ {
		for _, tool := range []string{"pty", "tmux", "dtach"} {
			d, n, cl, ow, ok := e.floodOnce(tool)
			if ok {
				samples[tool] = append(samples[tool], sample{d, n, cl, ow})
			}
		}
	}
	med := func(f func(sample) time.Duration) map[string]time.Duration {
		res := map[string]time.Duration{}
		for tool, ss := range samples {
			var ds []time.Duration
			for _, s := range ss {
				ds = append(ds, f(s))
			}
			res[tool] = medianOf(ds)
		}
		return res
	}
	report("until the end shows", med(func(s sample) time.Duration { return s.d }))
	report("client CPU", med(func(s sample) time.Duration { return s.client }))
	report("session holder CPU", med(func(s sample) time.Duration { return s.owner }))
	kb := med(func(s sample) time.Duration { return time.Duration(s.bytes / 1024) })
	fmt.Printf("  %-36s pty %6d KB   tmux %6d KB   dtach %6d KB   pty/tmux %.2f   pty/dtach %.2f\n", "bytes to the terminal",
		kb["pty"], kb["tmux"], kb["dtach"], ratio(float64(kb["pty"]), float64(kb["tmux"])), ratio(float64(kb["pty"]), float64(kb["dtach"])))
}

// floodOnce attaches a client in a terminal of its own to a session that
// waits for a go-file, then floods; it returns the time from the go-file
// to the mark reaching the terminal, the bytes the terminal got until it
// was quiet again, and the CPU the client and the session's holder used.
func (e *env) floodOnce(tool string) (time.Duration, int, time.Duration, time.Duration, bool) {
	id := fmt.Sprintf("fl%s%d", tool, time.Now().UnixNano()%100000)
	gate := filepath.Join(e.work, id+".go")
	script := fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.01; done; seq 1 1000000; echo %s; exec sleep 1000`, gate, floodMark)
	stop := e.startSession(tool, id, script)
	defer stop()
	owner := e.holderPid(tool, id)
	client := e.attachCmd(tool, id)
	f, err := pty.StartWithSize(client, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: attach %s: %v\n", tool, err)
		return 0, 0, 0, 0, false
	}
	defer func() { client.Process.Kill(); client.Wait(); f.Close() }()
	var mu sync.Mutex
	total, last := 0, time.Now()
	var tail []byte
	seen := make(chan struct{})
	go func() {
		buf := make([]byte, 64<<10)
		found := false
		for {
			n, err := f.Read(buf)
			mu.Lock()
			total += n
			last = time.Now()
			if !found {
				tail = append(tail, buf[:n]...)
				if bytes.Contains(tail, []byte(floodMark)) {
					found = true
					close(seen)
				}
				tail = tail[max(0, len(tail)-64):]
			}
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond) // let the client attach and draw once
	mu.Lock()
	start0 := total
	mu.Unlock()
	c0, o0 := cpuOf(client.Process.Pid), cpuOf(owner)
	start := time.Now()
	check(os.WriteFile(gate, nil, 0o644))
	select {
	case <-seen:
	case <-time.After(5 * time.Minute):
		fmt.Fprintf(os.Stderr, "bench: %s flood never ended\n", tool)
		return 0, 0, 0, 0, false
	}
	d := time.Since(start)
	// What comes after the mark (a redraw, the scrollback) counts too.
	for {
		time.Sleep(100 * time.Millisecond)
		mu.Lock()
		quiet := time.Since(last) > 300*time.Millisecond
		n := total - start0
		mu.Unlock()
		if quiet {
			return d, n, cpuOf(client.Process.Pid) - c0, cpuOf(owner) - o0, true
		}
	}
}

// holderPid is the process that holds the session's terminal.
func (e *env) holderPid(tool, id string) int {
	var out []byte
	switch tool {
	case "pty":
		out, _ = os.ReadFile(filepath.Join(e.root, id+".pid"))
	case "tmux":
		out, _ = e.tmux("display-message", "-p", "#{pid}").Output()
	case "dtach":
		out, _ = exec.Command("pgrep", "-o", "-f", "dtach -n "+filepath.Join(e.work, id+".dtach")).Output()
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return pid
}

// cpuOf is the user and system time process pid has used so far.
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil || pid == 0 {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
