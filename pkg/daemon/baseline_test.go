//go:build linux

package daemon_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// bigLines is how many lines of 1000 columns, a colour per cell, the
// big sessions print: their peek --full is past the 32 MiB a PEEK
// baseline may be, so it is the largest one the limits allow.
const bigLines = 3400

// bigSession starts a 50x1000 session that prints bigLines coloured lines
// (the last one "line 03399"), then "ready", then, when busy, a line
// "tick N" every 0.1 s. It returns the daemon's pid once "ready" shows.
func bigSession(t testing.TB, root, id string, busy bool) int {
	t.Helper()
	var b bytes.Buffer
	for i := range bigLines {
		for x := range 990 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm%c", (x+i)%256, 'a'+rune(x%26))
		}
		fmt.Fprintf(&b, "\x1b[0mline %05d\r\n", i)
	}
	file := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	after := "exec sleep 600"
	if busy {
		after = `i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.1; done`
	}
	cmd := exec.Command("sh", "-c", `ulimit -v "$0" && exec "$@"`, strconv.Itoa(daemonAS), "pty-run", "-d", "--id", id,
		"--rows", "50", "--cols", "1000", "--", "sh", "-c", `cat "$0"; echo ready; `+after, file)
	cmd.Env = testutil.Env(t, root)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	testutil.WaitFor(t, 120*time.Second, "the output to be emulated", func() bool {
		s, err := client.Peek(root, id, proto.PeekPlain)
		return err == nil && strings.Contains(string(s.Screen), "ready")
	})
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.DaemonPid
}

// statusLatency is how long a STATUS on a fresh connection takes.
func statusLatency(t *testing.T, root, id string) time.Duration {
	t.Helper()
	start := time.Now()
	c, err := net.Dial("unix", layout.At(root).Paths(id).Sock())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	statusOn(t, c)
	return time.Since(start)
}

// cpuOf is the process's CPU time so far.
func cpuOf(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// pssKB is the process's proportional set size.
func pssKB(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// watchLatency asks for STATUS and an ordinary peek over fresh
// connections for d, and returns the slowest answer.
func watchLatency(t *testing.T, root, id string, d time.Duration) time.Duration {
	t.Helper()
	var worst time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		worst = max(worst, statusLatency(t, root, id))
		start := time.Now()
		if _, err := client.Peek(root, id, 0); err != nil {
			t.Fatalf("peek: %v", err)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	return worst
}

// The bound on the answers' latency the tests assert: generous for a
// loaded machine; the daemon's own is far below (BenchmarkPeekLatency).
const answerBound = time.Second

// TestRepeatedPeeksCoalesced: one connection that sends 2,000 requests for
// a peek of the whole scrollback and reads nothing costs the daemon one
// rendering: STATUS and ordinary peeks are answered promptly meanwhile,
// and once the connection is gone the daemon is idle again.
func TestRepeatedPeeksCoalesced(t *testing.T) {
	root := testutil.Root(t)
	pid := bigSession(t, root, "rep", true)
	c := dial(t, root, "rep")
	var reqs []byte
	for range 2000 {
		reqs = append(reqs, header(byte(proto.Peek), 1)...)
		reqs = append(reqs, proto.PeekFull)
	}
	if _, err := c.Write(reqs); err != nil {
		t.Fatal(err)
	}
	cpu0 := cpuOf(pid)
	worst := watchLatency(t, root, "rep", 5*time.Second)
	t.Logf("slowest STATUS or peek with 2,000 unread full peeks: %v; daemon CPU %v in 5 s", worst, cpuOf(pid)-cpu0)
	if worst > answerBound {
		t.Errorf("an answer took %v", worst)
	}
	c.Close()
	testutil.WaitFor(t, 20*time.Second, "the daemon to be idle after the client left", func() bool {
		before := cpuOf(pid)
		time.Sleep(time.Second)
		return cpuOf(pid)-before < 200*time.Millisecond
	})
}

// TestManyUnreadPeeksBounded: 250 connections that each ask for a peek of
// the whole scrollback and read nothing leave STATUS and ordinary peeks
// answered promptly, and the daemon's memory bounded.
func TestManyUnreadPeeksBounded(t *testing.T) {
	root := testutil.Root(t)
	pid := bigSession(t, root, "many", false)
	base := pssKB(pid)
	sock := layout.At(root).Paths("many").Sock()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 250 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		c.Write(append(header(byte(proto.Peek), 1), proto.PeekFull))
	}
	peak := 0
	var worst time.Duration
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
		if !proc.Alive(pid) {
			t.Fatalf("the daemon died; Pss was %d MB at most", peak>>10)
		}
		worst = max(worst, watchLatency(t, root, "many", 200*time.Millisecond))
		peak = max(peak, pssKB(pid))
	}
	t.Logf("slowest STATUS or peek with 250 unread full peeks: %v; Pss %d MB idle, %d MB at most", worst, base>>10, peak>>10)
	if worst > answerBound {
		t.Errorf("an answer took %v", worst)
	}
	// The scrollback, the budget for clients (daemon.MaxHeld), one
	// rendering and the copies on their way.
	if limit := base + 256<<10; peak > limit {
		t.Errorf("Pss reached %d MB (idle: %d MB)", peak>>10, base>>10)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	testutil.WaitFor(t, 30*time.Second, "the daemon to be idle after the clients left", func() bool {
		before := cpuOf(pid)
		time.Sleep(time.Second)
		return cpuOf(pid)-before < 200*time.Millisecond
	})
}

// TestBigBaselineOnBusySession: on a session that prints a line every
// 0.1 s, with the largest scrollback a baseline may carry, pty peek --full
// gets its answer, with the newest lines, and an ATTACH that asks for
// the whole history gets it, followed by the live output.
func TestBigBaselineOnBusySession(t *testing.T) {
	root := testutil.Root(t)
	bigSession(t, root, "busy", true)
	testutil.WaitFor(t, 30*time.Second, "the ticks", func() bool {
		s, err := client.Peek(root, "busy", proto.PeekPlain)
		return err == nil && strings.Contains(string(s.Screen), "tick 3")
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(testutil.BinDir(t), "pty-peek"), "--full", "busy")
	cmd.Env = testutil.Env(t, root)
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("pty peek --full: %d bytes in %v", len(out), time.Since(start))
	if err != nil {
		t.Fatalf("pty peek --full: %v", err)
	}
	if !bytes.Contains(out, []byte("line 03399")) || !bytes.Contains(out, []byte("tick ")) || len(out) < 16<<20 {
		t.Errorf("pty peek --full: %d bytes, the newest lines missing", len(out))
	}

	c := dial(t, root, "busy")
	c.Write(append(header(byte(proto.Attach), 4), proto.Size(50, 1000)...))
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := proto.NewReader(c)
	var screen []byte
	for screen == nil {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("attach: no baseline: %v", err)
		}
		if f.Type == proto.Screen {
			screen = f.Payload
		}
	}
	if !bytes.Contains(screen, []byte("line 03399")) || !bytes.Contains(screen, []byte("line 02000")) {
		t.Errorf("the attach's baseline (%d bytes) lacks the history", len(screen))
	}
	waitData(t, r, "tick", "attach")
}

// waitData reads r until DATA with want in it.
func waitData(t *testing.T, r *proto.Reader, want, who string) {
	t.Helper()
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("%s: no live output after the baseline: %v", who, err)
		}
		if f.Type == proto.Data && bytes.Contains(f.Payload, []byte(want)) {
			return
		}
	}
}

// TestBigHistoryToTerminal: an ATTACH_TTY (the user's terminal handed to
// the daemon) on a busy session with the largest history a baseline may
// carry writes that history to the terminal, then the live output.
func TestBigHistoryToTerminal(t *testing.T) {
	root := testutil.Root(t)
	bigSession(t, root, "tty", true)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	c := dial(t, root, "tty").(*net.UnixConn)
	oob := unix.UnixRights(int(tty.Fd()), int(tty.Fd()))
	if _, _, err := c.WriteMsgUnix(proto.AppendFrame(nil, proto.AttachTTY, proto.Size(50, 1000)), oob, nil); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	// The terminal gets the history, its newest line, then a tick
	// printed after it.
	var seen []byte
	buf := make([]byte, 1<<20)
	ptmx.SetReadDeadline(time.Now().Add(90 * time.Second))
	total, last := 0, false
	for {
		n, err := ptmx.Read(buf)
		if err != nil {
			t.Fatalf("the terminal got %d bytes, without the history's end and live output: %v", total, err)
		}
		total += n
		seen = append(seen, buf[:n]...)
		if !last {
			if i := bytes.Index(seen, []byte("line 03399")); i >= 0 {
				last, seen = true, seen[i:]
			}
		}
		if last && bytes.Contains(seen, []byte("tick")) {
			break
		}
		if len(seen) > 64 {
			seen = seen[len(seen)-64:]
		}
	}
	if total < 16<<20 {
		t.Errorf("the terminal got %d bytes: not the history", total)
	}
}

// TestSharedBaselineGoesLive: followers whose full peeks of an unchanged
// screen share one rendering each receive the live output after it.
func TestSharedBaselineGoesLive(t *testing.T) {
	root := testutil.Root(t)
	bigSession(t, root, "shared", false)
	var readers []*proto.Reader
	for range 3 {
		c := dial(t, root, "shared")
		c.Write(append(header(byte(proto.Peek), 1), proto.PeekFull|proto.PeekFollow))
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		r := proto.NewReader(c)
		for {
			f, err := r.Next()
			if err != nil {
				t.Fatalf("no baseline: %v", err)
			}
			if f.Type == proto.Screen {
				if !bytes.Contains(f.Payload, []byte("line 03399")) {
					t.Errorf("a baseline of %d bytes without the newest line", len(f.Payload))
				}
				break
			}
		}
		readers = append(readers, r)
	}
	// The terminal echoes what is typed: output after the baselines.
	in := dial(t, root, "shared")
	in.Write(append(header(byte(proto.Data), 9), "echo-me\r\n"...))
	for i, r := range readers {
		waitData(t, r, "echo-me", fmt.Sprintf("follower %d", i))
	}
}

// BenchmarkStatusUnderFullPeeks reports how long STATUS takes on a session
// with the largest peek baseline while 250 connections that asked for it
// read nothing (the first iterations see the renderings at work). Run with
//
//	go test -run '^$' -bench StatusUnderFullPeeks -benchtime=200x ./pkg/daemon/
func BenchmarkStatusUnderFullPeeks(b *testing.B) {
	root := testutil.Root(b)
	bigSession(b, root, "bench", true)
	sock := layout.At(root).Paths("bench").Sock()
	for range 250 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		c.Write(append(header(byte(proto.Peek), 1), proto.PeekFull))
	}
	var worst time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		c, err := net.Dial("unix", sock)
		if err != nil {
			b.Fatal(err)
		}
		c.Write(header(byte(proto.Status), 0))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		r := proto.NewReader(c)
		for {
			f, err := r.Next()
			if err != nil {
				b.Fatal(err)
			}
			if f.Type == proto.Status {
				break
			}
		}
		c.Close()
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// TestRedrawPeekHasHistory: a reader that keeps its own emulator (pty
// web: PEEK with the redraw, full and follow bits) gets the scrollback
// first, as ATTACH's history, rendered in slices, then the exact screen,
// then the live output.
func TestRedrawPeekHasHistory(t *testing.T) {
	root := testutil.Root(t)
	bigSession(t, root, "web", false)
	c := dial(t, root, "web")
	c.Write(append(header(byte(proto.Peek), 1), proto.PeekRedraw|proto.PeekFull|proto.PeekFollow))
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	r := proto.NewReader(c)
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("no baseline: %v", err)
		}
		if f.Type != proto.Screen {
			continue
		}
		p := f.Payload
		if !bytes.HasPrefix(p, []byte(term.HistoryPrefix)) {
			t.Fatalf("the baseline starts %q, not with the history", p[:min(len(p), 40)])
		}
		// The screen's 50 rows hold the last lines and "ready".
		redraw := bytes.LastIndex(p, []byte(term.RedrawPrefix+"\x1b[?6l"))
		if redraw < 0 || !bytes.Contains(p[:redraw], []byte("line 03300")) || !bytes.Contains(p[redraw:], []byte("ready")) {
			t.Fatalf("a baseline of %d bytes, the screen from %d: not the history, then the screen", len(p), redraw)
		}
		break
	}
	in := dial(t, root, "web")
	in.Write(append(header(byte(proto.Data), 9), "echo-me\r\n"...))
	waitData(t, r, "echo-me", "the redraw peek")
}
