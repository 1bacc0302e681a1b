// Command web measures pty web: how long after a session prints a line a
// page in Chromium shows it, and what the server costs (CPU, memory) with
// ten viewers of a session under a flood, and whether they slow it down.
// Figures depend on the machine, so they are printed, not asserted.
//
//	go run ./bench/web            # everything (latency needs chromium)
//	go run ./bench/web -only flood
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/ptyorg/pty/pkg/web"
)

type env struct {
	work, bin, root string
}

func main() {
	only := flag.String("only", "", "run one workload: latency, flood")
	lines := flag.Int("n", 50, "lines for the latency workload")
	viewers := flag.Int("viewers", 10, "viewers for the flood workload")
	secs := flag.Int("secs", 10, "seconds of flood to measure")
	flag.Parse()

	work, err := os.MkdirTemp("/tmp", "pwb")
	check(err)
	e := &env{work: work, bin: filepath.Join(work, "bin"), root: filepath.Join(work, "r")}
	os.Mkdir(e.root, 0o700)
	defer e.cleanup()
	build := exec.Command("sh", "install/build.sh", e.bin, "-trimpath", "-ldflags=-s -w")
	build.Stderr = os.Stderr
	check(build.Run())

	if *only == "" || *only == "latency" {
		e.latency(*lines)
	}
	if *only == "" || *only == "flood" {
		e.flood(*viewers, time.Duration(*secs)*time.Second)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func (e *env) cmd(name string, args ...string) *exec.Cmd {
	c := exec.Command(filepath.Join(e.bin, name), args...)
	c.Env = append(os.Environ(), "PTY_ROOT="+e.root, "PATH="+e.bin+":"+os.Getenv("PATH"), "PTY_REAP_ON_EXIT=false")
	return c
}

func (e *env) run(argv ...string) string {
	out, err := e.cmd("pty", append([]string{"run", "-d", "--"}, argv...)...).Output()
	check(err)
	_, rest, _ := strings.Cut(string(out), `Session "`)
	id, _, _ := strings.Cut(rest, `"`)
	return id
}

func (e *env) cleanup() {
	pids, _ := filepath.Glob(filepath.Join(e.root, "*.pid"))
	for _, p := range pids {
		b, _ := os.ReadFile(p)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	os.RemoveAll(e.work)
}

// web starts pty web and returns its base URL, its token URL and the
// process.
func (e *env) web() (base, tokenURL string, p *os.Process) {
	c := e.cmd("pty-web", "--listen", "127.0.0.1:0")
	out, err := c.StdoutPipe()
	check(err)
	check(c.Start())
	l, err := bufio.NewReader(out).ReadString('\n')
	check(err)
	tokenURL = strings.TrimSpace(l)
	base, _, _ = strings.Cut(tokenURL, "/#")
	return base, tokenURL, c.Process
}

// --- latency: a line printed by the session, until the page shows it ---

func (e *env) latency(n int) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		fmt.Println("latency: chromium is not installed (apt-get install chromium); skipped")
		return
	}
	// The session prints the wall-clock time, in ms, as it prints; the
	// page notes when the row appears in its document. Both read the same
	// clock.
	id := e.run("sh", "-c", `while :; do printf 'T%s\n' "$(date +%s%3N)"; sleep 0.2; done`)
	base, tokenURL, p := e.web()
	defer p.Signal(os.Interrupt)

	dir, _ := os.MkdirTemp(e.work, "chromium")
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(dir), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	check(chromedp.Do(ctx, chromedp.Navigate(tokenURL), chromedp.Navigate(base+"/s/"+id)))
	// Lines on the page when measuring starts were printed before it.
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#screen').textContent.includes('T')`))
		check(err)
		if ok {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`
window.delays = []; window.seen = new Set();
for (const r of document.querySelectorAll('#screen .row')) seen.add(r.textContent.trim().slice(1));
new MutationObserver(() => {
  const now = performance.timeOrigin + performance.now();
  for (const r of document.querySelectorAll('#screen .row')) {
    const m = /^T(\d+)$/.exec(r.textContent.trim());
    if (m && !seen.has(m[1])) { seen.add(m[1]); delays.push(now - Number(m[1])); }
  }
}).observe(document.getElementById('screen'), {childList: true, subtree: true, characterData: true});
true`))
	check(err)
	deadline := time.Now().Add(time.Duration(n)*250*time.Millisecond + 10*time.Second)
	var delays []float64
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		delays, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](`window.delays`))
		check(err)
		if len(delays) >= n {
			break
		}
	}
	sort.Float64s(delays)
	if len(delays) == 0 {
		fmt.Println("latency: no line reached the page")
		return
	}
	pct := func(q float64) float64 { return delays[int(q*float64(len(delays)-1))] }
	fmt.Printf("\n== latency: a line printed by a session until the page's document shows it (%d lines, Chromium headless) ==\n", len(delays))
	fmt.Printf("  median %.1f ms   p90 %.1f ms   max %.1f ms\n", pct(0.5), pct(0.9), delays[len(delays)-1])
}

// --- flood: ten viewers of a session printing as fast as it can ---

func (e *env) flood(viewers int, d time.Duration) {
	fmt.Printf("\n== flood: `yes` in an 80x24 session, %d viewers (WebSocket clients that acknowledge every update, as the page does) ==\n", viewers)
	base, tokenURL, p := e.web()
	defer p.Signal(os.Interrupt)
	_, token, _ := strings.Cut(tokenURL, "/#")

	id := e.run("yes", "flood")
	ctx, cancel := context.WithCancel(context.Background())
	counts := e.viewers(ctx, viewers, base, token, id)
	time.Sleep(time.Second) // past the first baselines
	cpu0, t0 := cpuTicks(p.Pid), time.Now()
	c0 := sum(counts)
	time.Sleep(d)
	cpu1, t1 := cpuTicks(p.Pid), time.Now()
	updates := sum(counts) - c0
	rss, hwm := memKB(p.Pid)
	cancel()
	secs := t1.Sub(t0).Seconds()
	fmt.Printf("  pty web over %v: CPU %.0f%% of one core, RSS %.1f MiB (peak %.1f MiB), %.1f updates/s per viewer\n",
		d, float64(cpu1-cpu0)/secs, float64(rss)/1024, float64(hwm)/1024, float64(updates)/float64(viewers)/secs)

	// What the viewers cost the session: the time to print a fixed
	// amount, watched by no one and then by the viewers.
	const mib = 20
	alone := e.timedFlood(mib, 0, base, token)
	watched := e.timedFlood(mib, viewers, base, token)
	fmt.Printf("  a session printing %d MiB of `yes`: %.2f s unwatched, %.2f s watched by %d viewers\n", mib, alone.Seconds(), watched.Seconds(), viewers)
}

func sum(counts []int64) int64 {
	var n int64
	for i := range counts {
		n += atomic.LoadInt64(&counts[i])
	}
	return n
}

// viewers connects n live clients to session id; each acknowledges every
// screen update. It returns their update counts.
func (e *env) viewers(ctx context.Context, n int, base, token string, id string) []int64 {
	counts := make([]int64, n)
	for i := 0; i < n; i++ {
		h := http.Header{"Origin": {base}}
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/live/s/"+id,
			&websocket.DialOptions{HTTPHeader: h, Subprotocols: []string{web.Subprotocol, web.TokenProtocolPrefix + token}})
		check(err)
		c.SetReadLimit(64 << 20)
		go func(i int) {
			defer c.CloseNow()
			for {
				_, b, err := c.Read(ctx)
				if err != nil {
					return
				}
				if strings.HasPrefix(string(b), `{"t":"screen"`) {
					atomic.AddInt64(&counts[i], 1)
					c.Write(ctx, websocket.MessageText, []byte(`{"t":"ack"}`))
				}
			}
		}(i)
	}
	return counts
}

// timedFlood is how long a session takes to print mib MiB of "y" lines
// while n viewers watch it: from the key that starts it to its exit.
func (e *env) timedFlood(mib, n int, base, token string) time.Duration {
	id := e.run("sh", "-c", fmt.Sprintf("read go; yes | head -c %d", mib<<20))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.viewers(ctx, n, base, token, id)
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	check(e.cmd("pty", "send", id, "\r").Run())
	e.waitExit(id)
	return time.Since(start)
}

// waitExit waits until the session's exit is recorded.
func (e *env) waitExit(id string) {
	for {
		b, err := os.ReadFile(filepath.Join(e.root, id+".json"))
		if err == nil {
			var m struct{ ExitedAt string }
			json.Unmarshal(b, &m)
			if m.ExitedAt != "" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

func memKB(pid int) (rss, hwm int64) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				rss = v
			case "VmHWM:":
				hwm = v
			}
		}
	}
	return rss, hwm
}
