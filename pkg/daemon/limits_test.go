//go:build linux

package daemon_test

import (
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
	"github.com/ptyorg/pty/pkg/daemon"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// daemonAS is the address-space limit (ulimit -v, in KiB) of daemons in
// tests that push memory: a regression fails there quickly instead of
// eating the machine.
const daemonAS = 1 << 20

// startLimited starts a session whose daemon (and command) run under
// daemonAS, and returns the daemon's pid.
func startLimited(t *testing.T, root, id string, args ...string) int {
	t.Helper()
	argv := append([]string{"-c", `ulimit -v "$0" && exec "$@"`, strconv.Itoa(daemonAS), "pty-run", "-d", "--id", id, "--"}, args...)
	cmd := exec.Command("sh", argv...)
	cmd.Env = testutil.Env(t, root)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("start %s: %+v", id, r)
	}
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.DaemonPid
}

// sizeOf asks the session for its size over a fresh connection.
func sizeOf(t *testing.T, root, id string) (rows, cols int) {
	t.Helper()
	c := dial(t, root, id)
	c.Write(header(byte(proto.Status), 0))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := proto.NewReader(c)
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("no STATUS reply: %v", err)
		}
		if f.Type != proto.Status {
			continue
		}
		s, err := proto.ParseStatus(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return s.Terminal.Rows, s.Terminal.Cols
	}
}

// hwmKB is the daemon's peak resident memory so far.
func hwmKB(pid int) float64 { return statusKB(pid, "VmHWM") }

// TestHugeSizesAreClamped: a client asking for 65535x65535 (ATTACH,
// RESIZE, or ATTACH_TTY with a terminal) gets a session of at most
// proto.MaxRows x proto.MaxCols; the daemon neither dies trying to
// allocate the screen nor balloons.
func TestHugeSizesAreClamped(t *testing.T) {
	root := testutil.Root(t)
	pid := startLimited(t, root, "huge", "sleep", "60")

	a := dial(t, root, "huge")
	a.Write(append(header(byte(proto.Attach), 4), proto.Size(0xffff, 0xffff)...))
	testutil.WaitFor(t, 10*time.Second, "the session to take the attached size", func() bool {
		r, c := sizeOf(t, root, "huge")
		return r == proto.MaxRows && c == proto.MaxCols
	})
	// A RESIZE within the bound is followed; one past it is clamped.
	a.Write(append(header(byte(proto.Resize), 4), proto.Size(30, 90)...))
	testutil.WaitFor(t, 10*time.Second, "the resize", func() bool {
		r, c := sizeOf(t, root, "huge")
		return r == 30 && c == 90
	})
	a.Write(append(header(byte(proto.Resize), 4), proto.Size(10000, 10000)...))
	testutil.WaitFor(t, 10*time.Second, "the clamped resize", func() bool {
		r, c := sizeOf(t, root, "huge")
		return r == proto.MaxRows && c == proto.MaxCols
	})
	// A zero dimension is ignored, as a short payload is.
	a.Write(append(header(byte(proto.Resize), 4), proto.Size(0, 50)...))
	if r, c := sizeOf(t, root, "huge"); r != proto.MaxRows || c != proto.MaxCols {
		t.Errorf("after a RESIZE with zero rows the size is %dx%d", r, c)
	}
	a.Close()

	// The terminal handover: the size comes with the descriptors.
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	c := dial(t, root, "huge").(*net.UnixConn)
	oob := unix.UnixRights(int(tty.Fd()), int(tty.Fd()))
	if _, _, err := c.WriteMsgUnix(proto.AppendFrame(nil, proto.AttachTTY, proto.Size(0xffff, 0xfffe)), oob, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the handed-over terminal's clamped size", func() bool {
		r, c := sizeOf(t, root, "huge")
		return r == proto.MaxRows && c == proto.MaxCols
	})
	if !proc.Alive(pid) {
		t.Fatal("the daemon died")
	}
	// A 1000x1000 screen is a few tens of megabytes at most; unclamped,
	// 10000x10000 alone took 1.6 GB.
	if kb := hwmKB(pid); kb > 256<<10 {
		t.Errorf("the daemon's peak RSS is %.0f MB", kb/1024)
	}
}

// TestStalledClientsBounded: hundreds of attached clients that never read
// while the child floods cannot take the daemon past its budget; past
// daemon.MaxConns, connections are refused with a REFUSED frame; when
// they go, the daemon serves on and gives the memory back.
func TestStalledClientsBounded(t *testing.T) {
	root := testutil.Root(t)
	pid := startLimited(t, root, "flood", "yes")
	sock := layout.At(root).Paths("flood").Sock()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	refused := 0
	for i := 0; i < daemon.MaxConns+20; i++ {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		c.Write(append(header(byte(proto.Attach), 4), proto.Size(24, 80)...))
	}
	// The refused ones got a REFUSED frame first; the others are never
	// read (their first bytes are a GEOMETRY).
	for _, c := range conns[daemon.MaxConns:] {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		f, err := proto.NewReader(c).Next()
		if err == nil && f.Type == proto.Refused && strings.Contains(string(f.Payload), "too many connections") {
			refused++
		}
	}
	if refused != 20 {
		t.Errorf("%d of the 20 connections past the limit were refused", refused)
	}
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) && proc.Alive(pid) {
		time.Sleep(200 * time.Millisecond)
	}
	if !proc.Alive(pid) {
		t.Fatal("the daemon died")
	}
	if kb := hwmKB(pid); kb > 256<<10 {
		t.Errorf("peak RSS %.0f MB with stalled clients", kb/1024)
	}
	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if r, c := sizeOf(t, root, "flood"); r != 24 || c != 80 {
		t.Errorf("size %dx%d after the clients left", r, c)
	}
	testutil.WaitFor(t, 10*time.Second, "the daemon to give the memory back", func() bool {
		return statusKB(pid, "VmRSS") < 64<<10
	})
}

// TestUnreadRepliesBounded: a connection that sends STATUS requests and
// never reads the replies makes the daemon stop reading it, instead of
// piling up replies.
func TestUnreadRepliesBounded(t *testing.T) {
	root := testutil.Root(t)
	pid := startLimited(t, root, "st", "sleep", "60")
	c := dial(t, root, "st")
	reqs := make([]byte, 0, 5*100000)
	for range 100000 {
		reqs = append(reqs, header(byte(proto.Status), 0)...)
	}
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	for i := 0; i < 5; i++ {
		if _, err := c.Write(reqs); err != nil {
			break // the daemon stopped reading us: what we want
		}
	}
	// The requests it took in are answered by now, or would be piling
	// up (unbounded, a few megabytes a second: a STATUS takes a while).
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if kb := hwmKB(pid); kb > 24<<10 {
			t.Fatalf("peak RSS %.0f MB after unread STATUS requests", kb/1024)
		}
	}
	c.Close()
	// Everyone else is still served.
	if r, _ := sizeOf(t, root, "st"); r == 0 {
		t.Error("no STATUS")
	}
}

// TestPartialFramesBounded: connections part-way through frames that
// claim 32 MiB cost the daemon no more than the bytes it kept of them.
func TestPartialFramesBounded(t *testing.T) {
	root := testutil.Root(t)
	// The child drains its input: DATA goes on to the terminal as it
	// arrives, and a child that never reads would block every write
	// (and the test) until it ends.
	pid := startLimited(t, root, "pf", "sh", "-c", "stty raw -echo; exec cat >/dev/null")
	chunk := make([]byte, 2<<20)
	for i := 0; i < 40; i++ {
		c := dial(t, root, "pf")
		c.Write(header(byte(proto.Data), proto.MaxPayload))
		c.Write(chunk)
		c2 := dial(t, root, "pf")
		c2.Write(header(99, proto.MaxPayload)) // an unknown type is skipped
		c2.Write(chunk)
	}
	if r, _ := sizeOf(t, root, "pf"); r == 0 {
		t.Error("no STATUS")
	}
	if !proc.Alive(pid) {
		t.Fatal("the daemon died")
	}
	if kb := hwmKB(pid); kb > 48<<10 {
		t.Errorf("peak RSS %.0f MB with 80 partial frames", kb/1024)
	}
}

// TestPassedDescriptorsBounded: descriptors a peer passes without an
// ATTACH_TTY to use them are not kept.
func TestPassedDescriptorsBounded(t *testing.T) {
	root := testutil.Root(t)
	pid := startLimited(t, root, "fd", "sleep", "60")
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	fds := make([]int, 200)
	for i := range fds {
		fds[i] = int(devnull.Fd())
	}
	c := dial(t, root, "fd").(*net.UnixConn)
	sizeOf(t, root, "fd")
	// Only descriptors of /dev/null are counted: the daemon opens others
	// of its own as it starts (its watch), which are not the peer's.
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	nulls := func() int {
		ents, _ := os.ReadDir(fdDir)
		n := 0
		for _, e := range ents {
			if l, err := os.Readlink(fdDir + "/" + e.Name()); err == nil && l == os.DevNull {
				n++
			}
		}
		return n
	}
	before := nulls()
	for i := 0; i < 50; i++ {
		// A byte of a frame with each batch: descriptors need data.
		if _, _, err := c.WriteMsgUnix([]byte{byte(proto.Data)}[:1], unix.UnixRights(fds...), nil); err != nil {
			t.Fatal(err)
		}
	}
	// The 50 bytes are ten empty DATA frames; a STATUS request after them
	// is answered once they are all read.
	statusOn(t, c)
	// Two are kept for an ATTACH_TTY that may follow.
	if after := nulls(); after > before+2 {
		t.Errorf("the daemon holds %d descriptors of /dev/null, %d before", after, before)
	}
}

// TestRefusedClientsSaySo: with the session's connections all taken, the
// commands that need one fail with the reason, and send does not claim
// to have sent anything.
func TestRefusedClientsSaySo(t *testing.T) {
	root := testutil.Root(t)
	startLimited(t, root, "full", "sleep", "60")
	// Taken in order: the commands' connections come after these.
	for i := 0; i < daemon.MaxConns; i++ {
		dial(t, root, "full")
	}
	for _, args := range [][]string{{"send", "full", "x"}, {"peek", "full"}, {"stats", "full"}} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "too many connections") {
			t.Errorf("pty %v with every connection taken: exit %d, stdout %q, stderr %q", args, r.Code, r.Stdout, r.Stderr)
		}
	}
}

// TestLargestScreenReadable: the largest screen a session may have, in
// full colour with a colour per cell (about 40 MB serialized), reaches
// an attaching client whole; a peek of it is cut to its last lines that
// fit in a frame; the daemon stays within its address-space limit.
func TestLargestScreenReadable(t *testing.T) {
	var b strings.Builder
	for y := range proto.MaxRows {
		for x := range proto.MaxCols {
			fmt.Fprintf(&b, "\x1b[1;3;4;38;2;%d;%d;%d;48;2;%d;%d;9m%c", x%256, y%256, (x+y)%256, (x*7)%256, (y*3)%256, 'a'+rune(x%26))
		}
	}
	b.WriteString("\x1b[0m")
	file := filepath.Join(t.TempDir(), "screen")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	root := testutil.Root(t)
	cmd := exec.Command("sh", "-c", `ulimit -v "$0" && exec "$@"`, strconv.Itoa(daemonAS), "pty-run", "-d", "--id", "big",
		"--rows", strconv.Itoa(proto.MaxRows), "--cols", strconv.Itoa(proto.MaxCols), "--", "sh", "-c", `cat "$0"; echo; echo done; exec sleep 60`, file)
	cmd.Env = testutil.Env(t, root)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	testutil.WaitFor(t, 60*time.Second, "the output to be emulated", func() bool {
		s, err := client.Peek(root, "big", proto.PeekPlain)
		return err == nil && strings.Contains(string(s.Screen), "done")
	})
	s, err := client.Peek(root, "big", 0)
	if err != nil || len(s.Screen) > proto.MaxPayload || !strings.Contains(string(s.Screen), "done") {
		t.Errorf("peek: %d bytes, %v", len(s.Screen), err)
	}
	c, err := client.Dial(root, "big")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Raw().SetDeadline(time.Now().Add(30 * time.Second))
	a, err := c.AttachFrame(proto.MaxRows, proto.MaxCols)
	if err != nil || len(a.Screen) <= proto.MaxPayload {
		t.Errorf("attach: a baseline of %d bytes, %v", len(a.Screen), err)
	}
}
