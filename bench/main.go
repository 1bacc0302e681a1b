// Command bench runs the same workloads through pty, tmux and dtach in one
// run and prints each figure with pty's ratio to the others. It is not a
// test: figures depend on the machine, so they are reported, not asserted.
//
//	go run ./bench            # everything
//	go run ./bench -only cat  # one workload: cat, start, peek, key, rss, list, mem, reattach, flood, remote
//	go run ./bench -only remote -remote HOST  # pty --remote HOST vs ssh HOST tmux
//
// It builds the pty binaries from this checkout, uses a private tmux server
// (-L) and private dtach sockets, and cleans up after itself.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/ptyorg/pty/pkg/client/quick"
	"github.com/ptyorg/pty/pkg/proto"
)

type env struct {
	bin, root, work, tmuxSock string
	floor, idle               string // bench/floor.go
	n, rounds                 int
	starts                    int // repetitions of the rows timed against the floor
}

func main() {
	only := flag.String("only", "", "run one workload: cat, start, peek, key, rss, list, mem, reattach, flood, remote")
	n := flag.Int("n", 20, "repetitions for the latency workloads")
	starts := flag.Int("starts", 100, "repetitions for the rows of peek and list, whose distance from the floor is a fraction of a millisecond")
	size := flag.Int("mib", 32, "MiB of output for the cat workload")
	rounds := flag.Int("rounds", 3, "rounds of the cat and flood workloads")
	host := flag.String("remote", "", "for the remote workload: an ssh `HOST` with pty and tmux")
	base := flag.String("remote-base", "", "for the remote workload: a `DIR` of another build's binaries to compare, run by turns")
	baseHost := flag.String("remote-base-host", "", "with -remote-base: the `HOST` (a remotes.toml name) whose pty is that build's; -remote's by default")
	flag.Parse()

	e := setup(*n)
	e.rounds = max(*rounds, 1)
	e.starts = max(*starts, 1)
	defer e.cleanup()
	run := func(name string, f func()) {
		if *only == "" || *only == name {
			f()
		}
	}
	run("cat", func() { e.catWorkload(*size) })
	run("start", e.startWorkload)
	run("peek", e.peekWorkload)
	run("key", e.keyWorkload)
	run("rss", e.rssWorkload)
	run("list", e.listWorkload)
	run("mem", e.memWorkload)
	run("reattach", e.reattachWorkload)                                 // bench/reattach.go
	run("flood", e.floodWorkload)                                       // bench/flood.go
	run("remote", func() { e.remoteWorkload(*host, *base, *baseHost) }) // bench/remote.go
}

func setup(n int) *env {
	work, err := os.MkdirTemp("/tmp", "pb")
	check(err)
	e := &env{work: work, bin: filepath.Join(work, "bin"), root: filepath.Join(work, "r"), tmuxSock: "ptybench" + strconv.Itoa(os.Getpid()), n: n}
	os.Mkdir(e.root, 0o700)
	// Built as install.sh builds them (install/build.sh), so the figures
	// are those of the installed binaries.
	build := exec.Command("sh", "install/build.sh", e.bin, "-trimpath", "-ldflags=-s -w")
	build.Stderr = os.Stderr
	check(build.Run())
	rewriteAll(e.bin)
	e.floor = e.buildGo("floorgo", floorProgram)
	e.idle = e.buildGo("idlego", idleProgram)
	// The builds leave some hundred megabytes for the kernel to write
	// back, which it would do while the first workload is timed.
	syscall.Sync()
	for _, tool := range []string{"tmux", "dtach"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s is not installed (apt-get install %s); its columns will be empty\n", tool, tool)
		}
	}
	return e
}

func (e *env) cleanup() {
	exec.Command("tmux", "-L", e.tmuxSock, "kill-server").Run()
	pids, _ := filepath.Glob(filepath.Join(e.root, "*.pid"))
	for _, p := range pids {
		b, _ := os.ReadFile(p)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	exec.Command("pkill", "-f", e.work).Run() // dtach masters and their children
	os.RemoveAll(e.work)
}

func (e *env) ptyCmd(args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(e.bin, "pty"), args...)
	c.Env = append(os.Environ(), "PTY_ROOT="+e.root, "PATH="+e.bin+":"+os.Getenv("PATH"), "PTY_REAP_ON_EXIT=false")
	c.Env = dropEnv(c.Env, "PTY_SESSION", "TMUX")
	return c
}

func (e *env) tmux(args ...string) *exec.Cmd {
	c := exec.Command("tmux", append([]string{"-L", e.tmuxSock, "-f", "/dev/null"}, args...)...)
	c.Env = append(dropEnv(os.Environ(), "TMUX"), "TERM=xterm-256color")
	return c
}

func dropEnv(env []string, keys ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, k := range keys {
			if strings.HasPrefix(kv, k+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// --- cat: throughput of a 32 MiB coloured stream in a 50x200 session ---

func (e *env) catWorkload(mib int) {
	file := filepath.Join(e.work, "big.txt")
	writeColoured(file, mib<<20)
	fmt.Printf("\n== cat %d MiB of coloured text in a 50x200 session (time for cat to finish) ==\n", mib)
	for _, attached := range []bool{false, true} {
		label := "no client"
		if attached {
			label = "one attached client"
		}
		// Rounds in which the tools take turns; the median of each.
		samples := map[string][]time.Duration{}
		for r := 0; r < e.rounds; r++ {
			for _, tool := range []string{"pty", "tmux", "dtach"} {
				samples[tool] = append(samples[tool], e.catOnce(tool, file, attached))
			}
		}
		res := map[string]time.Duration{}
		for tool, ds := range samples {
			res[tool] = medianOf(ds)
		}
		report(fmt.Sprintf("%s (median of %d)", label, e.rounds), res)
	}
}

func writeColoured(path string, size int) {
	var b bytes.Buffer
	colours := []string{"31", "32", "33", "34", "1;35", "36", "38;5;208", "38;2;10;200;120"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\x1b[%sm%6d\x1b[0m 2026-11-29T12:00:00Z \x1b[1mINFO\x1b[0m request handled path=/api/v1/items/%d status=200 bytes=%d elapsed=%dms\r\n",
			colours[i%len(colours)], i, i*7, i*13, i%97)
	}
	check(os.WriteFile(path, b.Bytes()[:size], 0o644))
}

// catOnce starts a session whose command waits for a go-file, cats, and
// records how long cat took; the clock runs inside the session, so the
// figure is the time the terminal holder needed to drain the output.
func (e *env) catOnce(tool, file string, attached bool) time.Duration {
	id := fmt.Sprintf("cat%s%d", tool, time.Now().UnixNano()%100000)
	gate, out := filepath.Join(e.work, id+".go"), filepath.Join(e.work, id+".ns")
	script := fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.01; done; s=$(date +%%s%%N); cat %s; t=$(date +%%s%%N); echo $((t-s)) > %s.tmp; mv %s.tmp %s; exec sleep 1000`, gate, file, out, out, out)
	stop := e.startSession(tool, id, script)
	defer stop()
	var client *exec.Cmd
	var drained sync.WaitGroup
	if attached {
		client = e.attachCmd(tool, id)
		f, err := pty.StartWithSize(client, &pty.Winsize{Rows: 50, Cols: 200})
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: attach %s: %v\n", tool, err)
			return 0
		}
		drained.Add(1)
		go func() { defer drained.Done(); io.Copy(io.Discard, f) }()
		defer func() { client.Process.Kill(); client.Wait(); f.Close(); drained.Wait() }()
		time.Sleep(300 * time.Millisecond) // let the client attach and draw once
	}
	check(os.WriteFile(gate, nil, 0o644))
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(out); err == nil {
			ns, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			return time.Duration(ns)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "bench: %s cat never finished\n", tool)
	return 0
}

// startSession starts "sh -c script" detached in a 50x200 terminal and
// returns a function that stops it.
func (e *env) startSession(tool, id, script string) func() {
	switch tool {
	case "pty":
		c := e.ptyCmd("run", "-d", "--id", id, "--rows", "50", "--cols", "200", "--", "sh", "-c", script)
		c.Stderr = os.Stderr
		check(c.Run())
		return func() { e.ptyCmd("kill", id).Run(); e.ptyCmd("rm", id).Run() }
	case "tmux":
		c := e.tmux("new-session", "-d", "-s", id, "-x", "200", "-y", "50", "sh", "-c", script)
		c.Stderr = os.Stderr
		check(c.Run())
		return func() { e.tmux("kill-session", "-t", id).Run() }
	case "dtach":
		sock := filepath.Join(e.work, id+".dtach")
		// dtach -n sizes the pty from nothing; wrap in stty for 50x200.
		c := exec.Command("dtach", "-n", sock, "-Ez", "sh", "-c", "stty rows 50 cols 200; "+script)
		c.Stderr = os.Stderr
		check(c.Run())
		return func() { exec.Command("pkill", "-f", sock).Run() }
	}
	panic(tool)
}

func (e *env) attachCmd(tool, id string) *exec.Cmd {
	var c *exec.Cmd
	switch tool {
	case "pty":
		c = e.ptyCmd("attach", id)
	case "tmux":
		c = e.tmux("attach-session", "-t", id)
	case "dtach":
		c = exec.Command("dtach", "-a", filepath.Join(e.work, id+".dtach"), "-Ez")
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, "TERM=xterm-256color")
	return c
}

// --- start: until the session accepts connections ---

func (e *env) startWorkload() {
	fmt.Printf("\n== start a detached session until it is ready (median of %d) ==\n", e.n)
	// Taking turns, as in the keystroke workload.
	samples := map[string][]time.Duration{}
	for i := 0; i < e.n; i++ {
		id := fmt.Sprintf("st%d", i)
		samples["pty"] = append(samples["pty"], timeCmd(e.ptyCmd("run", "-d", "--id", id, "--", "sleep", "1000")))
		e.ptyCmd("kill", id).Run()
		e.ptyCmd("rm", id).Run()
		samples["floor"] = append(samples["floor"], e.floorOnce(true))
		samples["tmux"] = append(samples["tmux"], timeCmd(e.tmux("new-session", "-d", "-s", id, "sleep", "1000")))
		e.tmux("kill-session", "-t", id).Run()
		sock := filepath.Join(e.work, id+".dtach")
		samples["dtach"] = append(samples["dtach"], timeCmd(exec.Command("dtach", "-n", sock, "sleep", "1000")))
		exec.Command("pkill", "-f", sock).Run()
	}
	reportFloor("run -d / new-session -d / dtach -n", medians(samples))
}

// --- peek: print the screen as plain text ---

func (e *env) peekWorkload() {
	fmt.Printf("\n== print a 50x200 screen as plain text (median of %d) ==\n", e.starts)
	fmt.Println("   floor: an empty Go program exec'ing itself once (pty's two starts), or run once (beside pty-peek)")
	script := "seq 1 200; exec sleep 1000"
	stopP := e.startSession("pty", "peek1", script)
	defer stopP()
	stopT := e.startSession("tmux", "peek1", script)
	defer stopT()
	time.Sleep(300 * time.Millisecond)
	// Taking turns, as in the keystroke workload.
	var p, d, t, two, one, x []time.Duration
	var dUse, oneUse []usage
	for i := 0; i < e.starts; i++ {
		p = append(p, timeCmd(e.ptyCmd("peek", "--plain", "peek1")))
		two = append(two, e.floorOnce(true))
		// pty-peek run directly: the dispatcher's share is the difference.
		u := runUsage(e.ptyCmd2("pty-peek", "--plain", "peek1"))
		d, dUse = append(d, u.wall), append(dUse, u)
		u = runUsage(exec.Command(e.floor))
		one, oneUse = append(one, u.wall), append(oneUse, u)
		t = append(t, timeCmd(e.tmux("capture-pane", "-p", "-t", "peek1")))
		x = append(x, e.peekExchange("peek1"))
	}
	reportFloor("peek --plain / capture-pane -p", map[string]time.Duration{"pty": medianOf(p), "floor": medianOf(two), "tmux": medianOf(t)})
	reportFloor("pty-peek --plain (no dispatcher)", map[string]time.Duration{"pty": medianOf(d), "floor": medianOf(one), "tmux": medianOf(t)})
	// What pty-peek spends over one start of the floor is its own start
	// (a larger binary, package set-up, the first use of its heap and
	// code) and the exchange with the daemon; the exchange, timed in this
	// process, which has long started, is the part no start can remove.
	fmt.Printf("  %-36s cpu %9s   floor %9s   page faults %d, floor %d\n", "pty-peek --plain (no dispatcher)",
		round(medianOf(cpuTimes(dUse))), round(medianOf(cpuTimes(oneUse))), medianFaults(dUse), medianFaults(oneUse))
	fmt.Printf("  %-36s pty %9s   (one PEEK: connect, ask, read the screen; no process start)\n", "the exchange alone", round(medianOf(x)))
}

// usage is what a finished command cost: wall time, CPU time (user and
// system) and minor page faults, from wait4's rusage.
type usage struct {
	wall, cpu time.Duration
	faults    int64
}

func runUsage(c *exec.Cmd) usage {
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v: %v\n", c.Args, err)
	}
	u := usage{wall: time.Since(start)}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		u.faults = ru.Minflt
	}
	return u
}

func cpuTimes(us []usage) []time.Duration {
	ds := make([]time.Duration, len(us))
	for i, u := range us {
		ds[i] = u.cpu
	}
	return ds
}

func medianFaults(us []usage) int64 {
	fs := make([]int64, len(us))
	for i, u := range us {
		fs[i] = u.faults
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i] < fs[j] })
	if len(fs) == 0 {
		return 0
	}
	return fs[len(fs)/2]
}

// peekExchange times one plain PEEK of session id from this process, the
// way pty-peek asks (pkg/client/quick).
func (e *env) peekExchange(id string) time.Duration {
	start := time.Now()
	if _, err := quick.Peek(e.root, id, proto.PeekPlain, 10*time.Second); err != nil {
		fmt.Fprintf(os.Stderr, "bench: peek %s: %v\n", id, err)
	}
	return time.Since(start)
}

// --- key: a keystroke's round trip through an attached client ---

// The tools take turns, one keystroke each, so a change in the machine's
// load during the run weighs on all of them alike.
func (e *env) keyWorkload() {
	fmt.Printf("\n== keystroke round trip through an attached client (median of %d) ==\n", e.n)
	tools := []string{"pty", "tmux", "dtach"}
	typers := map[string]*typer{}
	for _, tool := range tools {
		id := "key" + tool
		stop := e.startSession(tool, id, "stty raw -echo; exec cat")
		defer stop()
		t, err := e.newTyper(tool, id)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: attach %s: %v\n", tool, err)
			continue
		}
		defer t.close()
		typers[tool] = t
	}
	samples := map[string][]time.Duration{}
	for i := 0; i < e.n; i++ {
		for _, tool := range tools {
			if t := typers[tool]; t != nil {
				samples[tool] = append(samples[tool], t.roundTrip(byte('a'+i%26)))
			}
		}
	}
	res := map[string]time.Duration{}
	for tool, ds := range samples {
		res[tool] = medianOf(ds)
	}
	report("type a key, see it echoed", res)
}

// typer is an attached client in a terminal of its own, whose echoes are
// read back byte by byte.
type typer struct {
	c   *exec.Cmd
	f   *os.File
	got chan byte
}

func (e *env) newTyper(tool, id string) (*typer, error) {
	c := e.attachCmd(tool, id)
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		return nil, err
	}
	t := &typer{c: c, f: f, got: make(chan byte, 4096)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			for _, b := range buf[:n] {
				t.got <- b
			}
			if err != nil {
				close(t.got)
				return
			}
		}
	}()
	t.drain(500 * time.Millisecond)
	return t, nil
}

func (t *typer) drain(d time.Duration) {
	timeout := time.After(d)
	for {
		select {
		case <-t.got:
		case <-timeout:
			return
		}
	}
}

func (t *typer) roundTrip(k byte) time.Duration {
	start := time.Now()
	t.f.Write([]byte{k})
	timeout := time.After(5 * time.Second)
	for {
		select {
		case b, ok := <-t.got:
			if !ok {
				return 0
			}
			if b == k {
				d := time.Since(start)
				t.drain(20 * time.Millisecond)
				return d
			}
		case <-timeout:
			return 0
		}
	}
}

func (t *typer) close() { t.c.Process.Kill(); t.c.Wait(); t.f.Close() }

// --- rss: memory of the terminal holder after 20,000 lines ---
//
// Private_Dirty from smaps_rollup: what the holder keeps that no other
// process shares, which is what one more session costs. (VmRSS would
// count the binary's pages, which every session shares.)

func (e *env) rssWorkload() {
	fmt.Printf("\n== private memory (Private_Dirty) of the session holder after 20,000 lines of output ==\n")
	script := "seq 1 20000 | sed 's/$/ some log line text to make it eighty columns wide or so, like a real log/'; exec sleep 1000"
	res := map[string]int{}
	stop := e.startSession("pty", "rss1", script)
	time.Sleep(2 * time.Second)
	if b, err := os.ReadFile(filepath.Join(e.root, "rss1.pid")); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		_, res["pty"] = smapsKB(pid)
	}
	stop()
	stopT := e.startSession("tmux", "rss1", script)
	time.Sleep(2 * time.Second)
	if out, err := e.tmux("display-message", "-p", "#{pid}").Output(); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		_, res["tmux"] = smapsKB(pid)
	}
	stopT()
	stopD := e.startSession("dtach", "rss1", script)
	time.Sleep(2 * time.Second)
	if out, err := exec.Command("pgrep", "-o", "-f", "dtach -n "+filepath.Join(e.work, "rss1.dtach")).Output(); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		_, res["dtach"] = smapsKB(pid)
	}
	stopD()
	fmt.Printf("  %-36s pty %6d KB   tmux %6d KB   dtach %6d KB   pty/tmux %.2f\n", "Private_Dirty", res["pty"], res["tmux"], res["dtach"], ratio(float64(res["pty"]), float64(res["tmux"])))

	// Like for like: pty keeps 10,000 lines of history, tmux 2,000 by
	// default. A fresh tmux server whose panes keep 10,000 lines too.
	e.tmux("kill-server").Run()
	e.tmux("new-session", "-d", "-s", "keeper", "sleep 1000").Run()
	e.tmux("set-option", "-g", "history-limit", "10000").Run()
	stopT = e.startSession("tmux", "rss2", script)
	time.Sleep(2 * time.Second)
	if out, err := e.tmux("display-message", "-p", "#{pid}").Output(); err == nil {
		pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
		_, res["tmux10k"] = smapsKB(pid)
	}
	stopT()
	e.tmux("kill-server").Run()
	fmt.Printf("  %-36s pty %6d KB   tmux %6d KB                      pty/tmux %.2f\n", "Private_Dirty, both keeping 10,000", res["pty"], res["tmux10k"], ratio(float64(res["pty"]), float64(res["tmux10k"])))
}

// --- helpers ---

func timeCmd(c *exec.Cmd) time.Duration {
	start := time.Now()
	if err := c.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v: %v\n", c.Args, err)
	}
	return time.Since(start)
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = append([]time.Duration(nil), ds...)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func report(label string, res map[string]time.Duration) {
	fmt.Printf("  %-36s pty %9s   tmux %9s   dtach %9s   pty/tmux %.2f   pty/dtach %.2f\n", label,
		round(res["pty"]), round(res["tmux"]), round(res["dtach"]),
		ratio(float64(res["pty"]), float64(res["tmux"])), ratio(float64(res["pty"]), float64(res["dtach"])))
}

func round(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(10 * time.Microsecond).String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
