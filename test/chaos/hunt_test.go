//go:build linux

package chaos

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
)

// The hunt tests put one real daemon through many hostile inputs each and
// check, after every one, that it still answers a fresh STATUS promptly:
// what a peer or a program sends may end its own connection, never the
// daemon or anyone else's service.

// answers fails unless the session's daemon answers STATUS within 2 s.
func answers(t *testing.T, root, id, what string) {
	t.Helper()
	if _, err := client.Status(root, id, 2*time.Second); err != nil {
		t.Fatalf("after %s: the daemon does not answer STATUS: %v", what, err)
	}
}

// status is the session's STATUS reply, decoded.
func status(t *testing.T, root, id string) map[string]any {
	t.Helper()
	raw, err := client.Status(root, id, 5*time.Second)
	if err != nil {
		t.Fatalf("status %s: %v", id, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("status %s: %v in %s", id, err, raw)
	}
	return m
}

// size is the session's terminal size as STATUS reports it.
func size(t *testing.T, root, id string) (rows, cols int) {
	t.Helper()
	m, _ := status(t, root, id)["terminal"].(map[string]any)
	r, _ := m["rows"].(float64)
	c, _ := m["cols"].(float64)
	return int(r), int(c)
}

func dial(t *testing.T, root, id string) *net.UnixConn {
	t.Helper()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: filepath.Join(root, id+".sock"), Net: "unix"})
	if err != nil {
		t.Fatalf("dial %s: %v", id, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByPeer reports whether the daemon closes c within d (reading and
// discarding what it sends meanwhile).
func closedByPeer(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 64<<10)
	for {
		if _, err := c.Read(buf); err != nil {
			ne, ok := err.(net.Error)
			return !ok || !ne.Timeout()
		}
	}
}

func header(t proto.Type, n uint32) []byte {
	b := []byte{byte(t), 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], n)
	return b
}

// startLimited starts a detached session whose launcher, and so its daemon,
// runs under an address-space limit, so a daemon that tried to hold what a
// hostile input asks for fails here instead of eating the machine.
func startLimited(t *testing.T, root, id string, argv ...string) {
	t.Helper()
	args := append([]string{"--as=" + strconv.Itoa(3<<30), filepath.Join(testutil.BinDir(t), "pty"), "run", "-d", "--id", id, "--"}, argv...)
	cmd := exec.Command("prlimit", args...)
	cmd.Env = testutil.Env(t, root)
	r := testutil.RunCmd(t, cmd)
	if r.Code != 0 {
		t.Fatalf("run %s: %+v", id, r)
	}
	testutil.WaitFor(t, 10*time.Second, id+" to answer", func() bool {
		_, err := client.Status(root, id, time.Second)
		return err == nil
	})
}

// TestHuntFrames: every frame type, known and not, with payloads of every
// awkward length, then the scenarios of hostile framing.
func TestHuntFrames(t *testing.T) {
	root := testutil.Root(t)
	startLimited(t, root, "f", "cat")
	types := []proto.Type{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 32, 33, 34, 35, 36, 37, 100, 255}
	payloads := [][]byte{nil, {0xff}, {0, 1, 2}, {0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, []byte("\x00\x18\x00\x50ctrl+\xff\x00")}
	cases := 0
	for _, typ := range types {
		for _, p := range payloads {
			c := dial(t, root, "f")
			if _, err := c.Write(proto.AppendFrame(nil, typ, p)); err != nil {
				t.Fatalf("%v %q: write: %v", typ, p, err)
			}
			c.Close()
			answers(t, root, "f", fmt.Sprintf("frame %v with %q", typ, p))
			cases++
		}
	}
	// The session's size is whatever the last writable frame asked for,
	// clamped: the 0xffff frames above are within 1000.
	r, c := size(t, root, "f")
	if r < 1 || r > 1000 || c < 1 || c > 1000 {
		t.Fatalf("size after the matrix: %vx%v", r, c)
	}

	scen := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a length over 32 MiB is dropped", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(header(proto.Data, proto.MaxPayload+1))
			if !closedByPeer(c, 5*time.Second) {
				t.Fatal("connection kept")
			}
		}},
		{"a length of 4 GiB is dropped", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(header(proto.Status, 0xffffffff))
			if !closedByPeer(c, 5*time.Second) {
				t.Fatal("connection kept")
			}
		}},
		{"a header cut short", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write([]byte{byte(proto.Attach), 0, 0})
			c.Close()
		}},
		{"a torn DATA frame never reaches the child", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(append(header(proto.Data, 1000), "TORNMARK\n"...))
			c.Close()
			// A whole frame after it does, so the child has read past
			// where the torn one would have been.
			testutil.MustRun(t, root, "send", "f", "WHOLEMARK\n")
			testutil.WaitFor(t, 10*time.Second, "the whole frame's echo", func() bool {
				return strings.Contains(testutil.Run(t, root, "peek", "--plain", "f").Stdout, "WHOLEMARK")
			})
			if strings.Contains(testutil.Run(t, root, "peek", "--plain", "f").Stdout, "TORNMARK") {
				t.Fatal("a torn frame's bytes reached the child")
			}
		}},
		{"a frame dripped byte by byte is served", func(t *testing.T) {
			c := dial(t, root, "f")
			for _, b := range proto.AppendFrame(nil, proto.Status, nil) {
				c.Write([]byte{b})
				time.Sleep(time.Millisecond)
			}
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			f, err := proto.NewReader(c).Next()
			if err != nil || f.Type != proto.Status {
				t.Fatalf("reply %v %v", f.Type, err)
			}
		}},
		{"10,000 STATUS requests never read", func(t *testing.T) {
			c := dial(t, root, "f")
			b := bytes.Repeat(proto.AppendFrame(nil, proto.Status, nil), 10000)
			c.SetWriteDeadline(time.Now().Add(3 * time.Second))
			c.Write(b) // may block once the daemon stops reading: that is the bound
		}},
		{"2,000 full PEEKs on one connection never read", func(t *testing.T) {
			c := dial(t, root, "f")
			b := bytes.Repeat(proto.AppendFrame(nil, proto.Peek, []byte{proto.PeekFull}), 2000)
			c.SetWriteDeadline(time.Now().Add(3 * time.Second))
			c.Write(b)
		}},
		{"20,000 resizes from a writable client end at the last", func(t *testing.T) {
			c := dial(t, root, "f")
			var b []byte
			b = proto.AppendFrame(b, proto.Attach, proto.Size(24, 80))
			for i := range 20000 {
				b = proto.AppendFrame(b, proto.Resize, proto.Size(10+i%50, 20+i%100))
			}
			b = proto.AppendFrame(b, proto.Resize, proto.Size(33, 77))
			go func() {
				buf := make([]byte, 64<<10)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
			if _, err := c.Write(b); err != nil {
				t.Fatal(err)
			}
			testutil.WaitForState(t, 10*time.Second, "the last size", func() (bool, string) {
				r, c := size(t, root, "f")
				return r == 33 && c == 77, fmt.Sprint(r, "x", c)
			})
			c.Close()
		}},
		{"PEEK then ATTACH on one connection", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(proto.AppendFrame(proto.AppendFrame(nil, proto.Peek, nil), proto.Attach, proto.Size(24, 80)))
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := proto.NewReader(c).Next(); err != nil {
				t.Fatalf("no baseline: %v", err)
			}
		}},
		{"frames after DETACH", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(proto.AppendFrame(proto.AppendFrame(nil, proto.Detach, nil), proto.Data, []byte("AFTERDETACH\n")))
			if !closedByPeer(c, 5*time.Second) {
				t.Fatal("DETACH did not close the connection")
			}
		}},
		{"HISTORY of 4 billion lines, then ATTACH", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(proto.AppendFrame(proto.AppendFrame(nil, proto.History, []byte{0xff, 0xff, 0xff, 0xff}), proto.Attach, proto.Size(24, 80)))
			c.SetReadDeadline(time.Now().Add(5 * time.Second))
			r := proto.NewReader(c)
			for {
				f, err := r.Next()
				if err != nil {
					t.Fatalf("no SCREEN: %v", err)
				}
				if f.Type == proto.Screen {
					return
				}
			}
		}},
		{"an 8 MiB DATA frame", func(t *testing.T) {
			c := dial(t, root, "f")
			p := bytes.Repeat([]byte("x"), 8<<20)
			go func() {
				buf := make([]byte, 64<<10)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
			c.SetWriteDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write(proto.AppendFrame(nil, proto.Data, p)); err != nil {
				t.Fatalf("write: %v", err)
			}
			c.Close()
		}},
		{"ATTACH_TTY without descriptors", func(t *testing.T) {
			c := dial(t, root, "f")
			c.Write(proto.AppendFrame(nil, proto.AttachTTY, proto.Size(24, 80)))
			closedByPeer(c, 2*time.Second)
		}},
		{"ATTACH_TTY with a pipe for a terminal", func(t *testing.T) {
			c := dial(t, root, "f")
			r, w, _ := os.Pipe()
			defer r.Close()
			defer w.Close()
			c.WriteMsgUnix(proto.AppendFrame(nil, proto.AttachTTY, proto.Size(24, 80)), syscall.UnixRights(int(r.Fd()), int(w.Fd())), nil)
			closedByPeer(c, 2*time.Second)
		}},
		{"ATTACH_TTY with one descriptor", func(t *testing.T) {
			c := dial(t, root, "f")
			n, _ := os.Open(os.DevNull)
			defer n.Close()
			c.WriteMsgUnix(proto.AppendFrame(nil, proto.AttachTTY, proto.Size(24, 80)), syscall.UnixRights(int(n.Fd())), nil)
			closedByPeer(c, 2*time.Second)
		}},
		{"ATTACH_TTY_KEY with a bad key and /dev/null", func(t *testing.T) {
			c := dial(t, root, "f")
			n, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			defer n.Close()
			p := append(proto.Size(24, 80), "ctrl+\xff\xfe"+strings.Repeat("a", 5000)...)
			c.WriteMsgUnix(proto.AppendFrame(nil, proto.AttachTTYKey, p), syscall.UnixRights(int(n.Fd()), int(n.Fd())), nil)
			closedByPeer(c, 2*time.Second)
		}},
	}
	for _, s := range scen {
		t.Run(s.name, func(t *testing.T) {
			s.run(t)
			answers(t, root, "f", s.name)
		})
		cases++
	}
	t.Logf("hunt: socket protocol: %d cases", cases)
}

// openFDs counts a process's open descriptors.
func openFDs(pid int) int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(ents)
}

// TestHuntPassedDescriptors: descriptors sent along with frames that take
// none, or more than a frame takes, are closed by the daemon, not kept: a
// peer must not be able to fill its descriptor table.
func TestHuntPassedDescriptors(t *testing.T) {
	root := testutil.Root(t)
	startLimited(t, root, "d", "cat")
	pid := pidOf(t, root, "d")
	before := openFDs(pid)
	n, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	fds := make([]int, 8)
	for i := range fds {
		fds[i] = int(n.Fd())
	}
	frames := []struct {
		typ proto.Type
		p   []byte
		k   int
	}{
		{proto.Data, []byte("x"), 8},
		{proto.Status, nil, 8},
		{proto.Peek, nil, 2},
		{proto.Attach, proto.Size(24, 80), 2},
		{proto.AttachTTY, proto.Size(24, 80), 8},
		{99, nil, 2},
	}
	for _, f := range frames {
		for range 50 {
			c := dial(t, root, "d")
			c.WriteMsgUnix(proto.AppendFrame(nil, f.typ, f.p), syscall.UnixRights(fds[:f.k]...), nil)
			c.Close()
		}
		answers(t, root, "d", fmt.Sprintf("descriptors with %v", f.typ))
		testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("the daemon to close descriptors passed with %v", f.typ), func() (bool, string) {
			got := openFDs(pid)
			return got <= before+4, fmt.Sprintf("%d open, %d before", got, before)
		})
	}
	t.Logf("hunt: socket protocol (descriptors): %d cases", len(frames))
}

// TestHuntOutput: a program prints hostile output of every escape
// family, large and malformed; the daemon's emulator takes it all, within
// bounded memory, and the session's screen is then still right: after a
// reset the program's next line shows, peeks of every form answer, and
// STATUS answers.
func TestHuntOutput(t *testing.T) {
	root := testutil.Root(t)
	dir := t.TempDir()
	rep := func(s string, n int) []byte { return bytes.Repeat([]byte(s), n) }
	big := func(prefix, fill, suffix string, n int) []byte {
		return append(append([]byte(prefix), rep(fill, n)...), suffix...)
	}
	families := []struct {
		name string
		out  []byte
	}{
		{"CSI with huge parameters", rep("\x1b[99999999999999999999;99999999999999999999H\x1b[4294967296A\x1b[-1;-1H", 50000)},
		{"CSI with 100,000 parameters", big("\x1b[", "1;", "m", 100000)},
		{"CSI with a million intermediates", big("\x1b[1", " ", "q", 1000000)},
		{"SGR truecolour garbage", rep("\x1b[38;2;999;-5;x;48;5;300;58:2::1:2:3m", 50000)},
		{"SGR colons and empty subparameters", rep("\x1b[4:9999;38:5:;48::::m", 50000)},
		{"an unterminated 8 MB OSC", big("\x1b]0;", "T", "", 8<<20)},
		{"a 1 MB title, a hundred times", rep("\x1b]2;"+strings.Repeat("t", 10000)+"\x07", 100)},
		{"OSC 52 clipboard, large", big("\x1b]52;c;", "QUFB", "\x07", 1<<20)},
		{"OSC 8 hyperlinks by the thousand", rep("\x1b]8;id=x;http://e/"+strings.Repeat("p", 200)+"\x1b\\L\x1b]8;;\x1b\\", 20000)},
		{"an unterminated 8 MB DCS", big("\x1bP1$q", "D", "", 8<<20)},
		{"DCS requests (DECRQSS) by the thousand", rep("\x1bP$qm\x1b\\\x1bP$qr\x1b\\", 20000)},
		{"an unterminated 8 MB APC (kitty graphics)", big("\x1b_Ga=T,f=100;", "A", "", 8<<20)},
		{"PM and SOS strings", rep("\x1b^"+strings.Repeat("p", 5000)+"\x1b\\\x1bX"+strings.Repeat("s", 5000)+"\x1b\\", 200)},
		{"8-bit C1 controls", rep("\x9b31m\x9d0;t\x9c\x90q\x9c\x84\x85\x88\x8d\x9b2J", 50000)},
		{"invalid UTF-8", rep("\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80\xff\xfe\xe2\x82", 100000)},
		{"100,000 combining marks on one cell", big("e", "\u0301", "\r\n", 100000)},
		{"wide characters at the last column", rep("\x1b[1;80H界\x1b[1;79H界界\U0001F600\r\n", 20000)},
		{"ZWJ sequences and variation selectors", rep("👨\u200d👩\u200d👧\u200d👦\ufe0f\ufe0e\u200d", 50000)},
		{"inverted and huge scroll regions", rep("\x1b[50;10r\x1b[1;99999r\x1b[0;0r\nx\x1bM\x1bD", 50000)},
		{"REP, ICH, DCH, ECH, IL, DL of huge counts", rep("x\x1b[999999999b\x1b[99999@\x1b[99999P\x1b[99999X\x1b[99999L\x1b[99999M", 20000)},
		{"alternate screen toggled 100,000 times", rep("\x1b[?1049hA\x1b[?1049l\x1b[?47h\x1b[?1047l", 100000)},
		{"cursor saves without restores", rep("\x1b7\x1b[s\x1b[?1048h", 200000)},
		{"tab stops set and cleared", rep("\x1bH\t\x1b[3g\x1b[0g\x1b[99999I\x1b[99999Z", 50000)},
		{"window operations asking for huge sizes", rep("\x1b[8;9999;9999t\x1b[4;99999;99999t\x1b[3;-1;-1t", 20000)},
		{"mode toggles of every number", func() []byte {
			var b []byte
			for i := range 10000 {
				b = fmt.Appendf(b, "\x1b[?%dh\x1b[%dh\x1b[?%dl", i, i, i)
			}
			return b
		}()},
		{"terminal queries by the hundred thousand", rep("\x1b[6n\x1b[c\x1b[>c\x1b[5n\x1b]10;?\x07\x1b[?u\x1b[14t", 20000)},
		{"kitty keyboard stack pushes", rep("\x1b[>31u\x1b[=5;2u", 100000)},
		{"charset switches and shifts", rep("\x1b(0\x0e\x1b)B\x1b*A\x1b+<\x1bn\x1bo\x0flqk", 50000)},
		{"DECALN and RIS storms", rep("\x1b#8\x1bc\x1b[!p", 20000)},
		{"NUL and DEL floods", rep("\x00\x7f", 2<<20)},
		{"10 MB on one line without a newline", rep("y", 10<<20)},
		{"a million lines", rep("line\r\n", 1000000)},
		{"escape sequences cut at every point", func() []byte {
			var b []byte
			seq := "\x1b[38;2;1;2;3m\x1b]0;t\x07\x1bP1$q\x1b\\"
			for i := range 2000 {
				b = append(b, seq[:i%len(seq)]...)
				b = append(b, 'z')
			}
			return b
		}()},
	}
	for i, f := range families {
		t.Run(f.name, func(t *testing.T) {
			file := filepath.Join(dir, strconv.Itoa(i))
			if err := os.WriteFile(file, f.out, 0o600); err != nil {
				t.Fatal(err)
			}
			id := "o" + strconv.Itoa(i)
			// ST, CAN and RIS end whatever string or mode the output left
			// open, as a program that redraws would.
			startLimited(t, root, id, "sh", "-c", `cat "$1"; printf '\033\\\030\033c'; echo OUTPUT-END; exec sleep 300`, "sh", file)
			testutil.WaitForState(t, 60*time.Second, "the line after the output", func() (bool, string) {
				r := testutil.Run(t, root, "peek", "--plain", id)
				return strings.Contains(r.Stdout, "OUTPUT-END"), r.Stdout + r.Stderr
			})
			for _, args := range [][]string{{"peek", id}, {"peek", "--full", id}, {"peek", "--full", "--plain", id}} {
				if r := testutil.Run(t, root, args...); r.Code != 0 {
					t.Fatalf("pty %v: %+v", args, r)
				}
			}
			answers(t, root, id, f.name)
			if kb := vmHWM(pidOf(t, root, id)); kb > 400<<10 {
				t.Errorf("the daemon peaked at %d MB", kb>>10)
			}
			testutil.Run(t, root, "kill", id)
		})
	}
	t.Logf("hunt: hostile output: %d cases", len(families))
}

// together runs n commands at once and returns their results.
func together(t *testing.T, n int, args func(i int) []string, root string) []testutil.Result {
	t.Helper()
	res := make([]testutil.Result, n)
	done := make(chan struct{})
	for i := range n {
		go func() {
			defer func() { done <- struct{}{} }()
			res[i] = testutil.Run(t, root, args(i)...)
		}()
	}
	for range n {
		<-done
	}
	return res
}

// sane checks what every command must do whatever it raced: exit 0, or
// exit 1 with one line on stderr saying why; never a panic.
func sane(t *testing.T, what string, rs ...testutil.Result) {
	t.Helper()
	for _, r := range rs {
		if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic:") {
			t.Fatalf("%s: a panic: %s", what, r.Stderr)
		}
		if r.Code != 0 && (r.Code != 1 || strings.TrimSpace(r.Stderr) == "") {
			t.Fatalf("%s: exit %d, stderr %q", what, r.Code, r.Stderr)
		}
	}
}

// settled waits until id is either running with a daemon that answers or
// gone (exited, vanished or removed), and returns which: nothing may stay
// half-started.
func settled(t *testing.T, root, id string) string {
	t.Helper()
	var st string
	testutil.WaitForState(t, 15*time.Second, id+" to settle", func() (bool, string) {
		r := testutil.Run(t, root, "list", "--json")
		if r.Code != 0 {
			return false, r.Stderr
		}
		var ss []struct {
			ID     string `json:"name"`
			Status string `json:"status"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &ss); err != nil {
			return false, err.Error()
		}
		st = "removed"
		for _, s := range ss {
			if s.ID == id {
				st = s.Status
			}
		}
		if st == "running" {
			_, err := client.Status(root, id, time.Second)
			return err == nil, "running but not answering"
		}
		return true, st
	})
	return st
}

// TestHuntLifecycle races the commands that start, stop and remove a
// session on the same id, and checks each race ends in a state a user can
// go on from: one daemon or none, every refusal explained, and the id
// usable again after pty rm.
func TestHuntLifecycle(t *testing.T) {
	root := testutil.Root(t)
	cases := 0
	reuse := func(t *testing.T, id string) {
		t.Helper()
		if settled(t, root, id) == "running" {
			testutil.MustRun(t, root, "kill", id)
		}
		if r := testutil.Run(t, root, "rm", id); r.Code != 0 && !strings.Contains(r.Stderr, "not found") {
			t.Fatalf("rm %s: %+v", id, r)
		}
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
		testutil.MustRun(t, root, "kill", id)
		testutil.MustRun(t, root, "rm", id)
	}
	scen := []struct {
		name string
		run  func(t *testing.T, id string)
	}{
		{"five runs of one id", func(t *testing.T, id string) {
			rs := together(t, 5, func(int) []string { return []string{"run", "-d", "--id", id, "--", "sleep", "300"} }, root)
			sane(t, "run", rs...)
			ok := 0
			for _, r := range rs {
				if r.Code == 0 {
					ok++
				}
			}
			if ok != 1 {
				t.Fatalf("%d runs started %s: %+v", ok, id, rs)
			}
		}},
		{"five kills of one session", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", "sleep 300 & sleep 300")
			sane(t, "kill", together(t, 5, func(int) []string { return []string{"kill", id} }, root)...)
			if st := settled(t, root, id); st == "running" {
				t.Fatal("still running after five kills")
			}
			testutil.WaitFor(t, 10*time.Second, "its processes to end", func() bool { return len(sessionProcs(root, id)) == 0 })
		}},
		{"three restarts of an ended session", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			testutil.MustRun(t, root, "kill", id)
			settled(t, root, id)
			sane(t, "restart", together(t, 3, func(int) []string { return []string{"restart", "-y", id} }, root)...)
			if st := settled(t, root, id); st != "running" {
				t.Fatalf("after three restarts: %s", st)
			}
			testutil.WaitFor(t, 10*time.Second, "one sleep", func() bool { return len(sessionProcs(root, id)) == 1 })
		}},
		{"three restarts of a running session", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			sane(t, "restart", together(t, 3, func(int) []string { return []string{"restart", "-y", id} }, root)...)
			if st := settled(t, root, id); st != "running" {
				t.Fatalf("after three restarts: %s", st)
			}
			testutil.WaitForState(t, 10*time.Second, "one sleep", func() (bool, string) {
				p := sessionProcs(root, id)
				return len(p) == 1, fmt.Sprint(p)
			})
		}},
		{"rm and restart at once", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			testutil.MustRun(t, root, "kill", id)
			settled(t, root, id)
			rs := together(t, 2, func(i int) []string {
				if i == 0 {
					return []string{"rm", id}
				}
				return []string{"restart", "-y", id}
			}, root)
			sane(t, "rm/restart", rs...)
			settled(t, root, id)
		}},
		{"kill and restart at once", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			rs := together(t, 2, func(i int) []string {
				if i == 0 {
					return []string{"kill", id}
				}
				return []string{"restart", "-y", id}
			}, root)
			sane(t, "kill/restart", rs...)
			settled(t, root, id)
			testutil.WaitForState(t, 10*time.Second, "at most one sleep", func() (bool, string) {
				p := sessionProcs(root, id)
				return len(p) <= 1, fmt.Sprint(p)
			})
		}},
		{"run -a by three at once", func(t *testing.T, id string) {
			rs := together(t, 3, func(int) []string { return []string{"run", "-d", "-a", "--id", id, "--", "sleep", "300"} }, root)
			sane(t, "run -a", rs...)
			testutil.WaitForState(t, 10*time.Second, "one sleep", func() (bool, string) {
				p := sessionProcs(root, id)
				return len(p) == 1, fmt.Sprint(p)
			})
		}},
		{"kill the moment run starts", func(t *testing.T, id string) {
			for range 5 {
				cmd := testutil.Command(t, root, "", "run", "-d", "--id", id, "--", "sleep", "300")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				testutil.WaitFor(t, 10*time.Second, "a file of "+id, func() bool {
					ents, _ := os.ReadDir(root)
					for _, e := range ents {
						if strings.HasPrefix(e.Name(), id+".") {
							return true
						}
					}
					return false
				})
				cmd.Process.Kill()
				cmd.Wait()
				reuse(t, id)
			}
		}},
		{"gc while runs start", func(t *testing.T, id string) {
			rs := together(t, 6, func(i int) []string {
				if i%2 == 0 {
					return []string{"gc"}
				}
				return []string{"run", "-d", "--id", id + strconv.Itoa(i), "--", "sleep", "300"}
			}, root)
			sane(t, "gc/run", rs...)
			for i := 1; i < 6; i += 2 {
				if st := settled(t, root, id+strconv.Itoa(i)); st != "running" {
					t.Fatalf("%s%d: %s after gc", id, i, st)
				}
				testutil.MustRun(t, root, "kill", id+strconv.Itoa(i))
			}
		}},
		{"gc during the grace period keeps the exit code", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", "read x; exit 7")
			c := stuckClient(t, filepath.Join(root, id+".sock"), false)
			testutil.MustRun(t, root, "send", id, "go\n")
			release := testutil.HoldGrace(t, root, id)
			sane(t, "gc", testutil.Run(t, root, "gc"))
			release()
			c.Close()
			if st := settled(t, root, id); st != "exited" {
				t.Fatalf("after gc in the grace period: %s", st)
			}
			if r := testutil.Run(t, root, "list"); !strings.Contains(r.Stdout, "7") {
				t.Fatalf("the exit code is not listed:\n%s", r.Stdout)
			}
		}},
		{"kill, rm and gc at once on a running session", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			sane(t, "kill/rm/gc", together(t, 3, func(i int) []string { return [][]string{{"kill", id}, {"rm", id}, {"gc"}}[i] }, root)...)
			settled(t, root, id)
		}},
		{"tag, rename and kill at once", func(t *testing.T, id string) {
			testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			sane(t, "tag/rename/kill", together(t, 3, func(i int) []string {
				return [][]string{{"tag", id, "k=v"}, {"rename", id, "new name"}, {"kill", id}}[i]
			}, root)...)
			settled(t, root, id)
			if r := testutil.Run(t, root, "list", "--json"); r.Code != 0 {
				t.Fatalf("list: %+v", r)
			}
		}},
	}
	for i, s := range scen {
		t.Run(s.name, func(t *testing.T) {
			id := "l" + strconv.Itoa(i)
			s.run(t, id)
			if i != 8 {
				reuse(t, id)
			}
		})
		cases++
	}
	t.Logf("hunt: lifecycle races: %d cases", cases)
}

// within runs pty args and fails the test if it takes longer than d: no
// file in the root may make a command hang.
func within(t *testing.T, d time.Duration, root string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return testutil.Result{Stdout: out.String(), Stderr: errb.String(), Code: code}
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		t.Fatalf("pty %v hung (%v); stdout %q stderr %q", args, d, out.String(), errb.String())
		return testutil.Result{}
	}
}

// TestHuntFiles: damaged, foreign, linked and special files in the root.
// Every command that reads the root lists what it can and explains the
// rest, in bounded time and memory; no command follows a link out of the
// root or writes through one, and none signals a process that is not the
// session's.
func TestHuntFiles(t *testing.T) {
	root := testutil.Root(t)
	outside := t.TempDir()
	testutil.MustRun(t, root, "run", "-d", "--id", "good", "--", "sleep", "300")
	testutil.WaitFor(t, 10*time.Second, "good to answer", func() bool {
		_, err := client.Status(root, "good", time.Second)
		return err == nil
	})
	goodJSON, err := os.ReadFile(filepath.Join(root, "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	secret := func(name, content string) string {
		t.Helper()
		p := filepath.Join(outside, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	unchanged := func(p, want string) {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil || string(b) != want {
			t.Fatalf("%s changed through a link: %q %v", p, b, err)
		}
	}
	// A process that is no session's: nothing may signal it.
	bystander := exec.Command("sleep", "300")
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bystander.Process.Kill(); bystander.Wait() })
	bpid := bystander.Process.Pid
	withPid := func(pid int) []byte {
		var m map[string]any
		json.Unmarshal(goodJSON, &m)
		m["daemonPid"] = pid
		m["generation"] = "00000000000000000000000000000000"
		b, _ := json.Marshal(m)
		return b
	}
	cmds := func(id string) [][]string {
		return [][]string{{"list"}, {"list", "--json"}, {"peek", id}, {"events", "--recent", id}, {"stats", id}, {"tag", id, "hunt=1"}, {"gc", "--dry-run"}}
	}
	scen := []struct {
		name  string
		id    string
		setup func(id string)
		check func(t *testing.T, id string)
	}{
		{"metadata linked to a file outside", "s1", func(id string) {
			link(secret("s1.json", string(goodJSON)), id+".json")
		}, func(t *testing.T, id string) { unchanged(filepath.Join(outside, "s1.json"), string(goodJSON)) }},
		{"event log linked to a file outside", "s2", func(id string) {
			write(id+".json", goodJSON)
			link(secret("s2.log", "SECRET\n"), id+".events.jsonl")
		}, func(t *testing.T, id string) {
			unchanged(filepath.Join(outside, "s2.log"), "SECRET\n")
			if r := testutil.Run(t, root, "events", "--recent", id); strings.Contains(r.Stdout, "SECRET") {
				t.Fatal("events read through a link")
			}
		}},
		{"pid file linked to a file outside", "s3", func(id string) {
			write(id+".json", withPid(bpid))
			link(secret("s3.pid", strconv.Itoa(bpid)), id+".pid")
		}, nil},
		{"lock linked to a file outside", "s4", func(id string) {
			write(id+".json", goodJSON)
			link(secret("s4.lock", "1"), id+".lock")
		}, func(t *testing.T, id string) { unchanged(filepath.Join(outside, "s4.lock"), "1") }},
		{"socket linked to another session's", "s5", func(id string) {
			write(id+".json", withPid(bpid))
			link(filepath.Join(root, "good.sock"), id+".sock")
		}, func(t *testing.T, id string) {
			if r := testutil.Run(t, root, "send", id, "x"); r.Code == 0 {
				t.Fatal("send went through a linked socket")
			}
		}},
		{"metadata cut in half", "s6", func(id string) { write(id+".json", goodJSON[:len(goodJSON)/2]) }, nil},
		{"empty metadata", "s7", func(id string) { write(id+".json", nil) }, nil},
		{"metadata of the wrong types", "s8", func(id string) {
			write(id+".json", []byte(`{"command":7,"args":"x","tags":[1,2],"rows":-5,"cols":1e99,"daemonPid":"1","exitCode":"no"}`))
		}, nil},
		{"20 MB of metadata", "s9", func(id string) {
			write(id+".json", append(append([]byte(`{"command":"sh","displayName":"`), bytes.Repeat([]byte("a"), 20<<20)...), `"}`...))
		}, nil},
		{"metadata nested a million deep", "s10", func(id string) {
			write(id+".json", append(bytes.Repeat([]byte("["), 1000000), bytes.Repeat([]byte("]"), 1000000)...))
		}, nil},
		{"metadata that is a directory", "s11", func(id string) { os.Mkdir(filepath.Join(root, id+".json"), 0o700) }, nil},
		{"metadata with control characters in its names", "s12", func(id string) {
			write(id+".json", []byte(`{"command":"sh","displayCommand":"\u001b]0;pwned\u0007sh","displayName":"\u001b[2J\u202eevil","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z","exitCode":0,"exitedAt":"2026-01-01T00:00:01.000Z","tags":{"k\u001b[31m":"v\u0007"}}`))
		}, func(t *testing.T, id string) {
			for _, args := range [][]string{{"list"}, {"events", "--recent", id}} {
				if r := testutil.Run(t, root, args...); strings.ContainsAny(r.Stdout, "\x1b\x07") || strings.Contains(r.Stdout, "\u202e") {
					t.Fatalf("pty %v printed a control character: %q", args, r.Stdout)
				}
			}
		}},
		{"100,000 tags", "s13", func(id string) {
			var m map[string]any
			json.Unmarshal(goodJSON, &m)
			tags := map[string]string{}
			for i := range 100000 {
				tags["t"+strconv.Itoa(i)] = "v"
			}
			m["tags"] = tags
			m["exitCode"] = 0
			m["exitedAt"] = "2026-01-01T00:00:01.000Z"
			b, _ := json.Marshal(m)
			write(id+".json", b)
		}, nil},
		{"a regular file for a socket", "s14", func(id string) {
			write(id+".json", withPid(bpid))
			write(id+".sock", []byte("not a socket"))
		}, nil},
		{"a FIFO for a socket", "s15", func(id string) {
			write(id+".json", withPid(bpid))
			syscall.Mkfifo(filepath.Join(root, id+".sock"), 0o600)
		}, nil},
		{"a FIFO for an event log", "s16", func(id string) {
			write(id+".json", goodJSON)
			syscall.Mkfifo(filepath.Join(root, id+".events.jsonl"), 0o600)
		}, nil},
		{"a FIFO for metadata", "s17", func(id string) { syscall.Mkfifo(filepath.Join(root, id+".json"), 0o600) }, nil},
		{"an event log of garbage lines", "s18", func(id string) {
			write(id+".json", goodJSON)
			write(id+".events.jsonl", []byte("garbage\n{\"type\":\n\x00\x00\n{\"session\":\"s18\",\"type\":\"tags_change\",\"ts\":\"2026-01-01T00:00:00.000Z\"}\n[1,2]\n"))
		}, func(t *testing.T, id string) {
			if r := testutil.Run(t, root, "events", "--recent", id); !strings.Contains(r.Stdout, "tags_change") {
				t.Fatalf("the good line among garbage is not shown: %+v", r)
			}
		}},
		{"an event log of one 20 MB line", "s19", func(id string) {
			write(id+".json", goodJSON)
			write(id+".events.jsonl", bytes.Repeat([]byte("z"), 20<<20))
		}, nil},
		{"an event log cut mid-line", "s20", func(id string) {
			write(id+".json", goodJSON)
			write(id+".events.jsonl", []byte("{\"session\":\"s20\",\"type\":\"session_start\",\"ts\":\"2026-01-01T00:00:00.000Z\"}\n{\"session\":\"s20\",\"ty"))
		}, nil},
		{"metadata naming a bystander as its daemon", "s21", func(id string) {
			write(id+".json", withPid(bpid))
			write(id+".pid", []byte(strconv.Itoa(bpid)))
		}, func(t *testing.T, id string) {
			sane(t, "kill", testutil.Run(t, root, "kill", id))
			sane(t, "gc", testutil.Run(t, root, "gc"))
		}},
		{"a pid file of garbage", "s22", func(id string) {
			write(id+".json", withPid(bpid))
			write(id+".pid", []byte("-1\n99999999999999999999\x00"))
		}, nil},
		{"foreign files beside the sessions", "s23", func(id string) {
			for _, n := range []string{"README", ".hidden", "x.json.bak", "a b.json", "-rf.json", "é.json", "s23.json~", "s23.JSON"} {
				write(n, []byte("foreign"))
			}
			os.Mkdir(filepath.Join(root, "subdir"), 0o700)
		}, func(t *testing.T, id string) {
			testutil.Run(t, root, "gc")
			for _, n := range []string{"README", ".hidden", "x.json.bak", "a b.json", "-rf.json", "é.json", "s23.json~", "s23.JSON", "subdir"} {
				if _, err := os.Lstat(filepath.Join(root, n)); err != nil {
					t.Fatalf("gc removed the foreign %s: %v", n, err)
				}
			}
		}},
		{"metadata whose id field names another session", "s24", func(id string) {
			var m map[string]any
			json.Unmarshal(goodJSON, &m)
			m["id"] = "good"
			m["name"] = "good"
			m["exitCode"] = 1
			m["exitedAt"] = "2026-01-01T00:00:01.000Z"
			b, _ := json.Marshal(m)
			write(id+".json", b)
		}, func(t *testing.T, id string) {
			sane(t, "rm", testutil.Run(t, root, "rm", id))
			if st := settled(t, root, "good"); st != "running" {
				t.Fatalf("rm of %s touched good: %s", id, st)
			}
		}},
	}
	cases := 0
	for _, s := range scen {
		t.Run(s.name, func(t *testing.T) {
			s.setup(s.id)
			for _, args := range cmds(s.id) {
				sane(t, fmt.Sprint(args), within(t, 10*time.Second, root, args...))
			}
			if s.check != nil {
				s.check(t, s.id)
			}
			if bystander.ProcessState != nil || syscall.Kill(bpid, 0) != nil {
				t.Fatal("the bystander was signalled")
			}
			if st := settled(t, root, "good"); st != "running" {
				t.Fatalf("good is %s", st)
			}
			// Clear the case away for the next, by hand: whether rm takes
			// each kind of damage is not what this case checks.
			ents, _ := os.ReadDir(root)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), s.id+".") {
					os.RemoveAll(filepath.Join(root, e.Name()))
				}
			}
		})
		cases++
	}
	t.Logf("hunt: filesystem: %d cases", cases)
}
