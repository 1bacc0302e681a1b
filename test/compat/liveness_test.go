package compat

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// TestUpstreamDaemonIdentity pins how a daemon of the original pty (node
// running .../server.js, or retitled pty-daemon, with PTY_SERVER_CONFIG
// naming its session in its environment) is told from a process that
// merely reuses its pid, another session's daemon included. It needs no
// upstream install, so it runs everywhere /proc does.
func TestUpstreamDaemonIdentity(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: liveness falls back to kill(pid, 0) here")
	}
	t.Parallel()
	root := testutil.Root(t)
	other := testutil.Root(t)
	// sh waiting on a pipe stands in for node: what counts is its
	// arguments and environment, not its name.
	start := func(env []string, args ...string) int {
		cmd := &exec.Cmd{Path: "/bin/sh", Args: args, Env: env}
		if len(args) == 0 || args[0] != layout.DaemonName {
			cmd.Args = append([]string{"sh", "-c", "read x"}, args...)
		}
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(); cmd.Wait() })
		return cmd.Process.Pid
	}
	config := func(id string) string { return `PTY_SERVER_CONFIG={"name":"` + id + `","command":"/bin/sh"}` }
	dir := "PTY_SESSION_DIR=" + root
	for i, c := range []struct {
		what string
		env  func(id string) []string
		args []string
		old  bool // the pid file predates the process
		want bool
	}{
		{"an upstream daemon", func(id string) []string { return []string{"PATH=/usr/bin:/bin", dir, config(id)} }, []string{"/opt/pty/dist/server.js"}, false, true},
		{"an upstream daemon, config first", func(id string) []string { return []string{config(id), "PTY_ROOT=" + root} }, []string{"/opt/pty/dist/server.js"}, false, true},
		{"a retitled upstream daemon", func(id string) []string { return []string{config(id), dir} }, []string{layout.DaemonName}, false, true},
		{"another session's upstream daemon", func(id string) []string { return []string{config("other"), dir} }, []string{"/opt/pty/dist/server.js"}, false, false},
		{"another root's upstream daemon", func(id string) []string { return []string{config(id), "PTY_SESSION_DIR=" + other} }, []string{"/opt/pty/dist/server.js"}, false, false},
		{"an upstream daemon started after the pid file", func(id string) []string { return []string{config(id), dir} }, []string{"/opt/pty/dist/server.js"}, true, false},
		{"a server.js without the daemon's config", func(id string) []string { return []string{"PATH=/usr/bin:/bin", dir} }, []string{"/srv/app/server.js"}, false, false},
		{"the config without server.js", func(id string) []string { return []string{config(id), dir} }, []string{"/srv/app/main.js"}, false, false},
		{"a session's own process named like a config", func(id string) []string { return []string{"X" + config(id), dir} }, []string{"/srv/app/server.js"}, false, false},
	} {
		id := "s" + strconv.Itoa(i)
		pidFile := layout.At(root).Paths(id).Pid()
		pid := start(c.env(id), c.args...)
		testutil.WriteRecord(t, root, id, &layout.Metadata{Command: "/bin/sh", Cwd: root, CreatedAt: layout.Now()})
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		if c.old {
			past := time.Now().Add(-time.Hour)
			os.Chtimes(pidFile, past, past)
		}
		if got := layout.At(root).VerifyDaemon(pid, id, ""); got != c.want {
			t.Errorf("%s (pid %d): IsSessionDaemon = %v, want %v", c.what, pid, got, c.want)
		}
		// And through the registry: a record whose pid file names it.
		want := layout.Vanished
		if c.want {
			want = layout.Running
		}
		if s, err := layout.At(root).Load(id); err != nil || s.Status != want {
			t.Errorf("%s: status %v (%v), want %v", c.what, s.Status, err, want)
		}
		os.Remove(pidFile) // testutil's cleanup must not SIGKILL our stand-ins' groups
	}
}
