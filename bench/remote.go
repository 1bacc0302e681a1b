package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	ptylib "github.com/creack/pty"

	"github.com/ptyorg/pty/pkg/remote"
)

// remoteWorkload compares pty --remote HOST with ssh HOST tmux for the
// three things a script asks of another host: its screen (peek --plain
// against capture-pane -p), its sessions (list against list-sessions)
// and a keystroke (send against send-keys). Both go over the same shared
// ssh connection, so the figures compare what each does on top of one
// round trip. The host needs pty (on the PATH of its non-interactive
// shell) and tmux.
//
// With base (a directory of another build's binaries) and baseHost (the
// same host, under a remotes.toml name whose pty is that build's), each
// run of pty is followed by one of the base build's, for an A/B of two
// builds under the same load.
func (e *env) remoteWorkload(host, base, baseHost string) {
	fmt.Println("remote (pty --remote HOST vs ssh HOST tmux, one shared connection; median of", e.n, "runs):")
	if host == "" {
		fmt.Println("  skipped: give -remote HOST (an ssh destination with pty and tmux installed)")
		return
	}
	cfg, err := remote.LoadConfig(os.Getenv)
	check(err)
	t, err := remote.Resolve(host, cfg)
	check(err)
	d := remote.Dialer{Target: t, Getenv: os.Getenv}
	pty := func(args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(e.bin, "pty"), append([]string{"--remote", host}, args...)...)
	}
	if baseHost == "" {
		baseHost = host
	}
	basePty := func(args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(base, "pty"), append([]string{"--remote", baseHost}, args...)...)
	}
	sock := "ptybenchremote" + strconv.Itoa(os.Getpid())
	ssh := func(line string) *exec.Cmd {
		argv, err := d.SSHCommand(line)
		check(err)
		return exec.Command(argv[0], argv[1:]...)
	}
	id := "bench-remote-" + strconv.Itoa(os.Getpid())
	prog := "seq 1 20; echo bench-screen; exec cat >/dev/null"
	if out, err := pty("run", "-d", "--id", id, "--", "sh", "-c", prog).CombinedOutput(); err != nil {
		fmt.Printf("  skipped: pty run on %s: %v %s\n", host, err, out)
		return
	}
	defer func() {
		pty("kill", id).Run()
		pty("rm", id).Run()
		ssh(remote.ShellQuote("tmux", "-L", sock, "kill-server")).Run()
	}()
	if out, err := ssh(remote.ShellQuote("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "80", "-y", "24", prog)).CombinedOutput(); err != nil {
		fmt.Printf("  skipped: tmux on %s: %v %s\n", host, err, out)
		return
	}
	time.Sleep(200 * time.Millisecond) // both print their 20 lines
	pairs := []struct {
		label           string
		pty, base, tmux func() *exec.Cmd
	}{
		{"peek --plain / capture-pane -p", func() *exec.Cmd { return pty("peek", "--plain", id) }, func() *exec.Cmd { return basePty("peek", "--plain", id) },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "capture-pane", "-p", "-t", "b")) }},
		{"list / list-sessions", func() *exec.Cmd { return pty("list") }, func() *exec.Cmd { return basePty("list") },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "list-sessions")) }},
		{"send / send-keys", func() *exec.Cmd { return pty("send", id, "x") }, func() *exec.Cmd { return basePty("send", id, "x") },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "send-keys", "-t", "b", "x")) }},
	}
	for _, p := range pairs {
		var pt, bt, tt []time.Duration
		for i := 0; i < e.n+1; i++ {
			type side struct {
				cmd func() *exec.Cmd
				ds  *[]time.Duration
			}
			sides := []side{{p.pty, &pt}, {p.tmux, &tt}}
			if base != "" {
				sides = append(sides, side{p.base, &bt})
			}
			for _, side := range sides {
				c := side.cmd()
				start := time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					fmt.Printf("  %s: %v %s\n", p.label, err, out)
					return
				}
				if i > 0 { // the first run sets up the shared connection
					*side.ds = append(*side.ds, time.Since(start))
				}
			}
		}
		if base == "" {
			report(p.label, map[string]time.Duration{"pty": medianOf(pt), "tmux": medianOf(tt)})
			continue
		}
		fmt.Printf("  %-36s pty %9s [%s]   base %9s [%s]   tmux %9s [%s]   pty/tmux %.2f   base/tmux %.2f   pty/base %.2f\n", p.label,
			round(medianOf(pt)), spread(pt), round(medianOf(bt)), spread(bt), round(medianOf(tt)), spread(tt),
			ratio(float64(medianOf(pt)), float64(medianOf(tt))), ratio(float64(medianOf(bt)), float64(medianOf(tt))),
			ratio(float64(medianOf(pt)), float64(medianOf(bt))))
	}
	e.remoteReconnect(pty(), id)
}

// spread is the middle half of ds: its first and third quartiles.
func spread(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	ds = append([]time.Duration(nil), ds...)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return round(ds[len(ds)/4]) + "-" + round(ds[3*len(ds)/4])
}

// remoteReconnect attaches in a terminal, kills the ssh process that
// carries the attach, and times until the session's screen is drawn
// again (the first retry waits 100 ms).
func (e *env) remoteReconnect(base *exec.Cmd, id string) {
	cmd := exec.Command(base.Path, append(base.Args[1:], "attach", id)...)
	f, err := ptylib.StartWithSize(cmd, &ptylib.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		fmt.Println("  reconnect:", err)
		return
	}
	defer func() { cmd.Process.Kill(); cmd.Wait(); f.Close() }()
	var mu sync.Mutex
	var out []byte
	go func() {
		b := make([]byte, 64<<10)
		for {
			n, err := f.Read(b)
			mu.Lock()
			out = append(out, b[:n]...)
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	seen := func(from int, s string) bool {
		mu.Lock()
		defer mu.Unlock()
		return from <= len(out) && bytes.Contains(out[from:], []byte(s))
	}
	waitFor := func(from int, s string) bool {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if seen(from, s) {
				return true
			}
		}
		return false
	}
	if !waitFor(0, "bench-screen") {
		fmt.Println("  reconnect: the attach did not draw the screen")
		return
	}
	var ds []time.Duration
	for i := 0; i < max(e.n/4, 3); i++ {
		ssh := childrenWith(cmd.Process.Pid, "remote-serve")
		if len(ssh) != 1 {
			fmt.Println("  reconnect: no ssh process to kill")
			return
		}
		mu.Lock()
		mark := len(out)
		mu.Unlock()
		start := time.Now()
		syscall.Kill(ssh[0], syscall.SIGKILL)
		if !waitFor(mark, "bench-screen") {
			fmt.Println("  reconnect: the screen was not drawn again")
			return
		}
		ds = append(ds, time.Since(start))
	}
	fmt.Printf("  %-36s pty %9s   (from killing ssh to the screen drawn again, median of %d)\n", "attach reconnect", round(medianOf(ds)), len(ds))
}

// childrenWith are the child processes of pid whose command line
// contains word (Linux: /proc).
func childrenWith(pid int, word string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		p, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		st, _ := os.ReadFile("/proc/" + en.Name() + "/stat")
		s := string(st)
		fs := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		cl, _ := os.ReadFile("/proc/" + en.Name() + "/cmdline")
		if len(fs) > 1 && fs[1] == strconv.Itoa(pid) && bytes.Contains(cl, []byte(word)) {
			out = append(out, p)
		}
	}
	return out
}
