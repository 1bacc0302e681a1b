//go:build linux

package daemon_test

import (
	"encoding/json"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/testutil"
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
	m, err := layout.ReadMetadata(root, id)
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
		var s struct{ Terminal struct{ Rows, Cols int } }
		if err := json.Unmarshal(f.Payload, &s); err != nil {
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
	if !layout.PidAlive(pid) {
		t.Fatal("the daemon died")
	}
	// A 1000x1000 screen is a few tens of megabytes at most; unclamped,
	// 10000x10000 alone took 1.6 GB.
	if kb := hwmKB(pid); kb > 256<<10 {
		t.Errorf("the daemon's peak RSS is %.0f MB", kb/1024)
	}
}
