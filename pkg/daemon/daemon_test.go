package daemon_test

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/daemon"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

func TestShouldReap(t *testing.T) {
	cases := []struct {
		tags      map[string]string
		ephemeral bool
		killed    bool
		env       string
		code      int
		want      bool
	}{
		{nil, false, false, "", 0, true},
		{nil, false, false, "false", 0, false},
		{nil, false, false, "OFF", 0, false},
		{nil, false, false, "1", 0, true},
		{map[string]string{"keep": "1"}, true, false, "", 0, false},
		{map[string]string{"keep": "no"}, false, false, "", 0, true},
		{nil, true, false, "false", 0, true},
		{map[string]string{"strategy.cleanup-on-clean-exit": "true"}, false, false, "false", 0, true},
		{map[string]string{"strategy.cleanup-on-clean-exit": "true"}, false, false, "", 1, false},
		// Read as gc reads it: any value but false/0/no/off is on.
		{map[string]string{"strategy.cleanup-on-clean-exit": "yes"}, false, false, "false", 0, true},
		{map[string]string{"strategy.cleanup-on-clean-exit": "off"}, false, false, "false", 0, false},
		{map[string]string{"strategy": "permanent"}, false, false, "", 0, false},
		{nil, false, true, "", 0, false},
		{nil, true, true, "", 0, true},
		{map[string]string{"keep": "true"}, true, true, "", 0, false},
		// A failure is kept unless reaping was asked for.
		{nil, false, false, "", 1, false},
		{nil, false, false, "", 128 + 11, false},
		{nil, false, false, "true", 1, true},
		{nil, false, false, "false", 1, false},
		{map[string]string{"keep": "false"}, false, false, "", 3, true},
		{nil, true, false, "", 1, true},
		{nil, false, true, "", 143, false},
	}
	for i, c := range cases {
		if got := daemon.ShouldReap(c.tags, c.ephemeral, c.killed, c.env, c.code); got != c.want {
			t.Errorf("case %d %+v: got %v", i, c, got)
		}
	}
}

func TestPeerAllowed(t *testing.T) {
	if !daemon.PeerAllowed(1000, 1000) || daemon.PeerAllowed(0, 1000) || daemon.PeerAllowed(1001, 1000) {
		t.Fatal("PeerAllowed must accept exactly the same uid")
	}
}

func start(t *testing.T, root, id string, args ...string) int {
	t.Helper()
	testutil.MustRun(t, root, append([]string{"run", "-d", "--id", id, "--"}, args...)...)
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	return m.DaemonPid
}

func dial(t *testing.T, root, id string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", layout.At(root).Paths(id).Sock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func header(typ byte, n uint32) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], n)
	return b
}

// statusOn asks for STATUS on an open raw connection.
func statusOn(t *testing.T, c net.Conn) {
	t.Helper()
	c.Write(header(byte(proto.Status), 0))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := proto.NewReader(c)
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("no STATUS reply: %v", err)
		}
		if f.Type == proto.Status {
			return
		}
	}
}

func TestMalformedFramesDoNotCrash(t *testing.T) {
	root := testutil.Root(t)
	pid := start(t, root, "mal", "sh", "-c", "echo alive; sleep 60")

	c := dial(t, root, "mal")
	c.Write([]byte("abc")) // a torn header
	c.Close()

	c = dial(t, root, "mal")
	c.Write(append(header(byte(proto.Attach), 2), 'a', 'b')) // short ATTACH: ignored
	c.Write(append(header(99, 3), 1, 2, 3))                  // unknown type: ignored
	c.Write(header(byte(proto.Resize), 0))                   // empty RESIZE: ignored
	statusOn(t, c)

	c = dial(t, root, "mal")
	c.Write(header(byte(proto.Data), proto.MaxPayload+1)) // oversized: the peer is dropped
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("oversized frame: read = %v, want EOF (connection dropped)", err)
	}

	c = dial(t, root, "mal")
	c.Write(append(header(byte(proto.Data), 100), "partial"...)) // then hang up mid-frame
	c.Close()

	if !proc.Alive(pid) {
		t.Fatal("daemon died")
	}
	// "alive" may not be on the screen yet on a loaded machine: wait for
	// it, which also proves the daemon still serves peeks.
	var snap client.Snapshot
	testutil.WaitFor(t, 10*time.Second, "the screen to show alive after abuse", func() bool {
		var err error
		snap, err = client.Peek(root, "mal", proto.PeekPlain)
		return err == nil && strings.Contains(string(snap.Screen), "alive")
	})
	if strings.Contains(string(snap.Screen), "partial") {
		t.Error("a torn DATA frame reached the child")
	}
}

func TestStalledClientDoesNotStallOthers(t *testing.T) {
	root := testutil.Root(t)
	pid := start(t, root, "slow", "sh", "-c", "read x; seq 1 1000000; echo DONE-MARK; sleep 60")
	// A follower that never reads.
	stuck := dial(t, root, "slow")
	stuck.Write(append(header(byte(proto.Peek), 1), 0))
	if err := client.Send(root, "slow", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run(t, root, "peek", "--plain", "--wait", "DONE-MARK", "-t", "30", "slow")
	if r.Code != 0 {
		t.Fatalf("peek --wait with a stalled client: %+v", r)
	}
	if !proc.Alive(pid) {
		t.Fatal("daemon died")
	}
	// The stalled client, once it reads, gets valid frames and a fresh
	// baseline instead of everything it missed.
	stuck.SetReadDeadline(time.Now().Add(10 * time.Second))
	fr := proto.NewReader(stuck)
	screens, total := 0, 0
	for screens < 2 {
		f, err := fr.Next()
		if err != nil {
			t.Fatalf("after %d screens and %d bytes: %v", screens, total, err)
		}
		total += len(f.Payload)
		if f.Type == proto.Screen {
			screens++
		}
	}
	if total > 8<<20 {
		t.Errorf("stalled client received %d bytes before its resync; the queue is not bounded", total)
	}
}

// TestBaselineThenLiveHasNoGapOrDuplicate attaches while the child is
// printing a counter and renders what the client receives: every number
// from the first one on screen to the last must appear exactly once, in
// order.
func TestBaselineThenLiveHasNoGapOrDuplicate(t *testing.T) {
	root := testutil.Root(t)
	const n = 40
	script := "read x; i=0; while [ $i -lt " + strconv.Itoa(n) + " ]; do seq $((i*2000+1)) $((i*2000+2000)); i=$((i+1)); sleep 0.01; done; echo END-MARK; sleep 60"
	start(t, root, "count", "sh", "-c", script)
	if err := client.Send(root, "count", []byte("\r")); err != nil {
		t.Fatal(err)
	}
	// Attach once some output has gone by.
	testutil.WaitFor(t, 10*time.Second, "counting to start", func() bool {
		s, err := client.Peek(root, "count", proto.PeekPlain)
		return err == nil && strings.Contains(string(s.Screen), "00")
	})
	c, err := client.Dial(root, "count")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	snap, err := c.AttachFrame(24, 80)
	if err != nil {
		t.Fatal(err)
	}
	scr := term.New(snap.Rows, snap.Cols, term.Options{Scrollback: 200000})
	scr.Write(snap.Screen)
	c.Raw().SetReadDeadline(time.Now().Add(30 * time.Second))
	var seen strings.Builder
	for !strings.Contains(seen.String(), "END-MARK") {
		f, err := c.Next()
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if f.Type == proto.Data {
			scr.Write(f.Payload)
			seen.Write(f.Payload)
			if len(seen.String()) > 64 {
				tail := seen.String()[len(seen.String())-64:]
				seen.Reset()
				seen.WriteString(tail)
			}
		}
	}
	var nums []int
	for _, line := range strings.Split(scr.PlainText(true), "\n") {
		line = strings.TrimSpace(line)
		if v, err := strconv.Atoi(line); err == nil {
			nums = append(nums, v)
		}
	}
	t.Logf("client saw %d..%d", nums[0], nums[len(nums)-1])
	if len(nums) < 100 {
		t.Fatalf("only %d numbers rendered", len(nums))
	}
	for i := 1; i < len(nums); i++ {
		if nums[i] != nums[i-1]+1 {
			t.Fatalf("after %d comes %d (position %d of %d): output lost or duplicated at the baseline", nums[i-1], nums[i], i, len(nums))
		}
	}
	if nums[len(nums)-1] != n*2000 {
		t.Errorf("last number %d, want %d", nums[len(nums)-1], n*2000)
	}
}

// TestPeerOfAnotherUIDIsDropped needs root, to connect as another user.
func TestPeerOfAnotherUIDIsDropped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to connect as another uid")
	}
	// A system python the other user can execute (not one under /root).
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("needs /usr/bin/python3 as the foreign client")
	}
	root := testutil.Root(t)
	start(t, root, "peer", "sleep", "60")
	sock := layout.At(root).Paths("peer").Sock()
	// Open the way, as a careless chmod would: only the uid check remains.
	os.Chmod(root, 0o755)
	os.Chmod(sock, 0o666)
	defer os.Chmod(root, 0o700)
	script := `
import socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
try:
    s.sendall(struct.pack(">BI", 7, 0))
    d = s.recv(100)
except (ConnectionResetError, BrokenPipeError):
    d = b""
print("got", len(d))
`
	cmd := exec.Command(py, "-c", script, sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("foreign client: %v %s", err, out)
	}
	if strings.TrimSpace(string(out)) != "got 0" {
		t.Fatalf("a client of another uid was served: %s", out)
	}
	// The owner still is.
	if _, err := client.Status(root, "peer", 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestTerminalEventsAreLogged(t *testing.T) {
	root := testutil.Root(t)
	script := `printf '\033]2;my-title\007'; printf '\007\007\007'; printf '\033]9;hello there\007'; printf '\033[?25l'; echo done; sleep 60`
	start(t, root, "ev", "sh", "-c", script)
	want := map[string]bool{layout.EventTitleChange: false, layout.EventBell: false, layout.EventNotification: false, layout.EventCursorVisible: false}
	var evs []layout.Event
	testutil.WaitFor(t, 10*time.Second, "terminal events in the log", func() bool {
		evs, _ = layout.At(root).Events("ev")
		for _, e := range evs {
			if _, ok := want[e.Type]; ok {
				want[e.Type] = true
			}
		}
		for _, ok := range want {
			if !ok {
				return false
			}
		}
		return true
	})
	bells := 0
	for _, e := range evs {
		switch e.Type {
		case layout.EventBell:
			bells++
		case layout.EventTitleChange:
			if e.Fields["value"] != "my-title" {
				t.Errorf("title_change %+v", e)
			}
		case layout.EventNotification:
			if e.Fields["body"] != "hello there" && e.Fields["title"] != "hello there" || e.Fields["source"] != "osc9" {
				t.Errorf("notification %+v", e)
			}
		}
	}
	if bells != 1 {
		t.Errorf("%d bell events for a burst of 3, want 1 (rate-limited)", bells)
	}
}

// TestQueriesAnsweredOnlyWhenDetached: with nobody attached the daemon
// answers DA1 for the missing terminal.
func TestQueriesAnsweredOnlyWhenDetached(t *testing.T) {
	root := testutil.Root(t)
	script := `stty -echo -icanon min 1; printf '\033[c'; dd bs=1 count=3 2>/dev/null | od -An -c; sleep 60`
	start(t, root, "da", "sh", "-c", script)
	testutil.WaitFor(t, 10*time.Second, "the DA1 reply to reach the child", func() bool {
		s, err := client.Peek(root, "da", proto.PeekPlain)
		return err == nil && strings.Contains(string(s.Screen), `033   [   ?`)
	})
}
