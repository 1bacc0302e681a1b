package compat

import (
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// TestUpstreamDaemonIdentity pins how a daemon of the original pty (node
// running .../server.js, with PTY_SERVER_CONFIG in its environment) is told
// from a process that merely reuses its pid. It needs no upstream install,
// so it runs everywhere /proc does.
func TestUpstreamDaemonIdentity(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc: liveness falls back to kill(pid, 0) here")
	}
	t.Parallel()
	root := testutil.Root(t)
	// sh waiting on a pipe stands in for node: what counts is its
	// arguments and environment, not its name.
	start := func(env []string, args ...string) int {
		cmd := exec.Command("sh", append([]string{"-c", "read x"}, args...)...)
		cmd.Env = env
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
	config := `PTY_SERVER_CONFIG={"name":"x","command":"/bin/sh"}`
	for _, c := range []struct {
		what string
		pid  int
		want bool
	}{
		{"an upstream daemon", start([]string{"PATH=/usr/bin:/bin", config}, "/opt/pty/dist/server.js"), true},
		{"an upstream daemon, config first", start([]string{config, "PATH=/usr/bin:/bin"}, "/opt/pty/dist/server.js"), true},
		{"a server.js without the daemon's config", start([]string{"PATH=/usr/bin:/bin"}, "/srv/app/server.js"), false},
		{"the config without server.js", start([]string{config}, "/srv/app/main.js"), false},
		{"a session's own process named like a config", start([]string{"X" + config}, "/srv/app/server.js"), false},
	} {
		if got := layout.DaemonPidAlive(c.pid); got != c.want {
			t.Errorf("%s (pid %d): DaemonPidAlive = %v, want %v", c.what, c.pid, got, c.want)
		}
		// And through the registry: a record whose pid file names it.
		id := "s" + strconv.Itoa(c.pid)
		if err := layout.WriteMetadata(root, id, &layout.Metadata{Command: "/bin/sh", Cwd: root, CreatedAt: layout.Now()}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(layout.PathsFor(root, id).Pid(), []byte(strconv.Itoa(c.pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		want := layout.Vanished
		if c.want {
			want = layout.Running
		}
		if s, err := layout.Load(root, id); err != nil || s.Status != want {
			t.Errorf("%s: status %v (%v), want %v", c.what, s.Status, err, want)
		}
		os.Remove(layout.PathsFor(root, id).Pid()) // testutil's cleanup must not SIGKILL our stand-ins' groups
	}
}
