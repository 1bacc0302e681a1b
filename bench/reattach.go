package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/creack/pty"
)

// --- reattach: a session with 10,000 lines of coloured history ---

// reattachMark is the last line the session prints: on the screen, so
// drawn after the history, the end of the redraw the attach makes.
const reattachMark = "reattach-end"

// reattachScript prints 10,049 lines in varying colours (10,000 go to the
// scrollback of a 50-row screen), then the mark.
const reattachScript = `i=0; while [ $i -lt 10049 ]; do printf '\033[3%dmline %d of the build log, with some words in it\033[0m\n' $((i%7+1)) $i; i=$((i+1)); done; echo ` + reattachMark + `; exec sleep 100000`

// The original pty (test/compat/install-upstream.sh installs it).
func upstreamCLI() (node, cli string) {
	dir := os.Getenv("PTY_COMPAT_DIR")
	if dir == "" {
		dir = "/tmp/pty-upstream"
	}
	cli = filepath.Join(dir, "node_modules", "@myobie", "pty", "dist", "cli.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(cli); err != nil || serr != nil {
		return "", ""
	}
	return node, cli
}

func (e *env) upstreamCmd(args ...string) *exec.Cmd {
	node, cli := upstreamCLI()
	root := filepath.Join(e.work, "up")
	os.MkdirAll(root, 0o700)
	c := exec.Command(node, append([]string{cli}, args...)...)
	c.Env = append(dropEnv(os.Environ(), "PTY_SESSION", "TMUX"), "PTY_SESSION_DIR="+root, "PTY_ROOT_LEGACY_SILENT=1")
	c.Dir = root
	return c
}

func (e *env) reattachWorkload() {
	fmt.Printf("\n== reattach to a 50x200 session with 10,000 lines of coloured history (median of %d) ==\n", e.n)
	fmt.Println("   bytes written to the attaching terminal, time from starting the client until the screen is drawn")
	waitMark := func(peek func() []byte) {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && !bytes.Contains(peek(), []byte(reattachMark)) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	type tool struct {
		name   string
		attach func() *exec.Cmd
	}
	var tools []tool

	stopP := e.startSession("pty", "ra", reattachScript)
	defer stopP()
	waitMark(func() []byte { b, _ := e.ptyCmd("peek", "--plain", "ra").Output(); return b })
	tools = append(tools, tool{"pty attach", func() *exec.Cmd { return e.attachCmd("pty", "ra") }},
		tool{"pty attach --history 0", func() *exec.Cmd { return e.ptyCmd("attach", "--history", "0", "ra") }})

	if node, _ := upstreamCLI(); node != "" {
		c := e.upstreamCmd("run", "-d", "--name", "ra", "--", "sh", "-c", "stty rows 50 cols 200; "+reattachScript)
		if out, err := c.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: original pty run -d: %v\n%s", err, out)
		} else {
			defer e.upstreamCmd("kill", "ra").Run()
			waitMark(func() []byte { b, _ := e.upstreamCmd("peek", "--plain", "ra").Output(); return b })
			tools = append(tools, tool{"original pty attach", func() *exec.Cmd { return e.upstreamCmd("attach", "ra") }})
			// An original client of our daemon, which gets the history too.
			tools = append(tools, tool{"original attach, our daemon", func() *exec.Cmd {
				c := e.upstreamCmd("attach", "ra")
				c.Env = append(c.Env, "PTY_SESSION_DIR="+e.root)
				return c
			}})
		}
	} else {
		fmt.Fprintln(os.Stderr, "bench: the original pty is not installed (test/compat/install-upstream.sh); its rows are left out")
	}

	if _, err := exec.LookPath("tmux"); err == nil {
		// A pane keeping 10,000 lines, as pty does: the option is read
		// when a pane is made, and the server lives while a session does.
		e.tmux("new-session", "-d", "-s", "keeper", "sleep 100000").Run()
		e.tmux("set-option", "-g", "history-limit", "10000").Run()
		stopT := e.startSession("tmux", "ra", reattachScript)
		defer stopT()
		waitMark(func() []byte { b, _ := e.tmux("capture-pane", "-p", "-t", "ra").Output(); return b })
		tools = append(tools, tool{"tmux attach", func() *exec.Cmd { return e.attachCmd("tmux", "ra") }})
	}

	// Taking turns, as in the keystroke workload.
	times := map[string][]time.Duration{}
	sizes := map[string]int{}
	for i := 0; i < e.n; i++ {
		for _, t := range tools {
			d, n, err := reattachOnce(t.attach())
			if err != nil {
				fmt.Fprintf(os.Stderr, "bench: %s: %v\n", t.name, err)
				continue
			}
			times[t.name] = append(times[t.name], d)
			sizes[t.name] = n
		}
	}
	for _, t := range tools {
		if len(times[t.name]) == 0 {
			continue
		}
		fmt.Printf("  %-30s %10d bytes   %9s\n", t.name, sizes[t.name], round(medianOf(times[t.name])))
	}
}

// reattachOnce runs an attaching client on a 50x200 terminal until it has
// drawn the mark, and returns how long that took and the bytes it wrote.
func reattachOnce(c *exec.Cmd) (time.Duration, int, error) {
	c.Env = append(c.Env, "TERM=xterm-256color")
	start := time.Now()
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		return 0, 0, err
	}
	defer func() { c.Process.Kill(); c.Wait(); f.Close() }()
	// The terminal's reads are blocking: a goroutine reads, the loop
	// below waits on it with timeouts.
	chunks := make(chan []byte, 64)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 256<<10)
			n, err := f.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	var out bytes.Buffer
	var d time.Duration
	timeout := time.After(time.Minute)
	for d == 0 {
		select {
		case b, ok := <-chunks:
			if !ok {
				return 0, 0, fmt.Errorf("the client ended after %d bytes", out.Len())
			}
			// The mark may straddle two reads.
			tail := max(out.Len()-len(reattachMark), 0)
			out.Write(b)
			if bytes.Contains(out.Bytes()[tail:], []byte(reattachMark)) {
				d = time.Since(start)
			}
		case <-timeout:
			return 0, 0, fmt.Errorf("no %q after %d bytes", reattachMark, out.Len())
		}
	}
	// What follows the mark (the rest of the redraw): until quiet.
	for {
		select {
		case b, ok := <-chunks:
			if !ok {
				return d, out.Len(), nil
			}
			out.Write(b)
			continue
		case <-time.After(300 * time.Millisecond):
		}
		break
	}
	return d, out.Len(), nil
}
