package compat

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// exitProgram waits for a line, then exits 3: the EXIT frame's code must
// reach the other side's attached client. The pause before the exit keeps
// our pty send (which confirms delivery with a STATUS round trip after the
// data) from racing the daemon's close at the exit: that race is ours and
// not about compatibility (a send delivered just before the exit can still
// report "broken pipe").
var exitProgram = []string{"sh", "-c", `echo READY; read x; echo bye; sleep 0.3; exit 3`}

// TestExitWhileAttached: a session that ends while the other side's client
// is attached ends that client with the session's exit code.
func TestExitWhileAttached(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	oursMust(t, root, append([]string{"run", "-d", "--id", "go3", "--tag", "keep=true", "--"}, exitProgram...)...)
	up.start(t, root, "up3", append([]string{"--"}, exitProgram...)...)
	for _, c := range []struct {
		what, id string
		client   func() *testutil.Terminal
	}{
		{"upstream attach on our daemon", "go3", func() *testutil.Terminal {
			return testutil.StartTerminal(t, up.command(t, root, "attach", "go3"), 24, 80)
		}},
		{"our attach on upstream's daemon", "up3", func() *testutil.Terminal {
			return testutil.StartTerminal(t, testutil.Command(t, root, "", "attach", "up3"), 24, 80)
		}},
	} {
		u := c.client()
		u.WaitLines(t, []string{"READY"}, c.what)
		u.Write(t, "\r")
		u.WaitOutput(t, "["+c.id+" exited with code 3]")
		if code := u.Exit(t); code != 3 {
			t.Errorf("%s exited %d, want the session's 3", c.what, code)
		}
		// Upstream's daemon may send EXIT before the last output (see
		// TestFollowUntilExit); ours must not.
		if c.id == "go3" && !strings.Contains(u.Output(), "bye") {
			t.Errorf("%s missed the last output: %q", c.what, u.Output())
		}
		our, their := sides(t, up, root)
		for _, s := range []side{our, their} {
			testutil.WaitFor(t, 5*time.Second, s.name+" list to see "+c.id+" exited", func() bool {
				e := parseList(t, s.name, s.must(t, "list", "--json").Stdout)[c.id]
				return e.Status == "exited" && e.ExitCode != nil && *e.ExitCode == 3
			})
		}
	}
	// Upstream saves its exit record twice: at the exit, with the output
	// read so far, and again 500 ms later at shutdown with all of it.
	var m *layout.Metadata
	testutil.WaitFor(t, 5*time.Second, "upstream's final exit record to read here", func() bool {
		var err error
		m, err = layout.At(root).Metadata("up3")
		return err == nil && m.ExitCode != nil && *m.ExitCode == 3 &&
			len(m.LastLines) > 0 && m.LastLines[len(m.LastLines)-1] == "bye"
	})
}

// TestFollowUntilExit: the other side's read-only follower (peek -f) gets
// the baseline, the live output and the exit code, and its input is not
// typed into the session.
func TestFollowUntilExit(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	oursMust(t, root, append([]string{"run", "-d", "--id", "go4", "--tag", "keep=true", "--"}, exitProgram...)...)
	up.start(t, root, "up4", append([]string{"--"}, exitProgram...)...)
	our, their := sides(t, up, root)
	for _, c := range []struct {
		what, id       string
		follower, send side
		cmd            func() *testutil.Terminal
	}{
		{"upstream peek -f on our daemon", "go4", their, our, func() *testutil.Terminal {
			return testutil.StartTerminal(t, up.command(t, root, "peek", "-f", "go4"), 24, 80)
		}},
		{"our peek -f on upstream's daemon", "up4", our, their, func() *testutil.Terminal {
			return testutil.StartTerminal(t, testutil.Command(t, root, "", "peek", "-f", "up4"), 24, 80)
		}},
	} {
		u := c.cmd()
		u.WaitOutput(t, "READY")
		u.Write(t, "ignored\r") // read-only: must not reach the program
		if r := c.send.run(t, "send", c.id, "typed\r"); r.Code != 0 {
			t.Fatalf("send: %+v; follower output %q; peek %+v; list %s", r, u.Output(), ours(t, root, "peek", "--plain", c.id), ours(t, root, "list").Stdout)
		}
		u.WaitOutput(t, "["+c.id+" exited with code 3]")
		if code := u.Exit(t); code != 3 {
			t.Errorf("%s exited %d, want the session's 3", c.what, code)
		}
		out := u.Output()
		if strings.Contains(out, "ignored") {
			t.Errorf("%s: output %q: the follower's typing reached the program", c.what, out)
		}
		// Upstream's daemon may send EXIT before the program's last
		// output (node-pty reports the exit before the final read; see
		// docs/compat.md), so only our daemon is held to the last line.
		if c.id == "go4" && !strings.Contains(out, "bye") {
			t.Errorf("%s: output %q, want the program's last line before the exit", c.what, out)
		}
	}
}

// TestRestartAcross: each side starts again a session the other side's
// daemon ran, from the record that daemon left (0.10.0's "run -a" on a
// dead id reuses its cwd and tags).
func TestRestartAcross(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	prog := []string{"sh", "-c", `echo "up $PTY_SESSION"; exec cat`}
	up.start(t, root, "r1", append([]string{"--tag", "keep=true", "--"}, prog...)...)
	oursMust(t, root, append([]string{"run", "-d", "--id", "r2", "--tag", "keep=true", "--"}, prog...)...)
	for _, id := range []string{"r1", "r2"} {
		waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, []string{"up " + id}, id)
		oursMust(t, root, "send", id, "\x04")
		// Exited, and its daemon gone: both daemons record the exit and
		// then linger (500 ms) for their clients, and neither side starts
		// an id again while its old daemon still runs.
		testutil.WaitFor(t, 10*time.Second, id+" to exit and its daemon to end", func() bool {
			_, err := os.Stat(layout.At(root).Paths(id).Pid())
			return os.IsNotExist(err) && parseList(t, "our", oursMust(t, root, "list", "--json").Stdout)[id].Status == "exited"
		})
	}
	oursMust(t, root, "restart", "-y", "r1")
	up.start(t, root, "r2", append([]string{"-a", "--"}, prog...)...)
	for id, daemon := range map[string]string{"r1": "pty-daemon", "r2": "node"} {
		waitScreen(t, func() testutil.Result { return up.run(t, root, "peek", "--plain", id) }, []string{"up " + id}, id+" restarted")
		l := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout)[id]
		if l.Status != "running" || l.Tags["keep"] != "true" || l.Cwd != root {
			t.Errorf("%s after its restart across: %+v", id, l)
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(layout.At(root).Pid(id)) + "/comm"); err == nil && strings.TrimSpace(string(b)) != daemon {
			t.Errorf("%s restarted under %q, want %s", id, strings.TrimSpace(string(b)), daemon)
		}
	}
}
