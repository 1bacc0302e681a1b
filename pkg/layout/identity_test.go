package layout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestDaemonIdentity pins which processes a pid file may name for its
// session to read as running: only the session's own daemon, told by its
// arguments, and for daemons that do not carry their generation, also by
// a start no later than the pid file's.
func TestDaemonIdentity(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	t.Parallel()
	root := testutil.Root(t)
	other := testutil.Root(t)
	// sh runs its first argument (the id) as a script from its cwd.
	start := func(args ...string) int {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, args[1]), []byte("read x\n"), 0o600)
		cmd := &exec.Cmd{Path: "/bin/sh", Args: args, Dir: dir}
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
	const gen = "00112233445566778899aabbccddeeff"
	for i, c := range []struct {
		what string
		args func(id string) []string
		old  bool // the pid file predates the process
		want Status
	}{
		{"its daemon", func(id string) []string { return daemonArgs(root, id, gen) }, false, Running},
		{"its daemon, pid file older (its generation says enough)", func(id string) []string { return daemonArgs(root, id, gen) }, true, Running},
		{"its daemon through a root spelled differently", func(id string) []string { return daemonArgs(root+"/", id, gen) }, false, Running},
		{"another generation's daemon", func(id string) []string { return daemonArgs(root, id, "ffeeddccbbaa99887766554433221100") }, false, Vanished},
		{"another root's daemon of the same id", func(id string) []string { return daemonArgs(other, id, gen) }, false, Vanished},
		{"another session's daemon", func(id string) []string { return daemonArgs(root, id+"x", gen) }, false, Vanished},
		{"an older daemon of this pty", func(id string) []string { return []string{DaemonName, id} }, false, Running},
		{"an older daemon started after the pid file", func(id string) []string { return []string{DaemonName, id} }, true, Vanished},
	} {
		id := "s" + strconv.Itoa(i)
		pid := start(c.args(id)...)
		if err := writeRecord(root, id, &Metadata{Command: "/bin/sh", Cwd: root, CreatedAt: Now(), Generation: gen}); err != nil {
			t.Fatal(err)
		}
		pidFile := pathsFor(root, id).Pid()
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		if c.old {
			past := time.Now().Add(-time.Hour)
			os.Chtimes(pidFile, past, past)
		}
		if s, err := load(root, id); err != nil || s.Status != c.want {
			t.Errorf("%s: Load status %v (%v), want %v", c.what, s.Status, err, c.want)
		}
		all, err := listFast(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			if s.ID == id && s.Status != c.want {
				t.Errorf("%s: listFast status %v, want %v", c.what, s.Status, c.want)
			}
		}
		os.Remove(pidFile) // testutil's cleanup must not SIGKILL our stand-ins' groups
	}
}

// A lock names its holder by pid. After a crash or a reboot that pid may
// belong to a process that started after the lock was taken: it is not
// the holder, and the lock must not stay busy forever.
func TestLockHeldByAReusedPidIsStale(t *testing.T) {
	t.Parallel()
	root := testutil.Root(t)
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	path := filepath.Join(root, "s.lock")
	os.WriteFile(path, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
	// Taken after the holder started: held.
	if l, err := acquireLock(path, 0); err == nil {
		l.Release()
		t.Fatalf("a lock held by a live process was taken")
	}
	// Taken an hour before the process with its pid started: stale.
	past := time.Now().Add(-time.Hour)
	os.Chtimes(path, past, past)
	l, err := acquireLock(path, 0)
	if err != nil {
		t.Fatalf("a lock whose pid was reused after it was taken stays busy: %v", err)
	}
	l.Release()
}

// daemonArgs is the argv pty starts a daemon with (internal/registry),
// spelled out here as the format identity.go reads.
func daemonArgs(root, id, generation string) []string {
	return []string{DaemonName, id, generation, root}
}
