package lifecycle

import (
	"errors"
	"github.com/ptyorg/pty/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
	"github.com/ptyorg/pty/pkg/spawn"
)

func waitFile(t *testing.T, path string) string {
	t.Helper()
	var line string
	testutil.WaitFor(t, 10*time.Second, "a whole line in "+path, func() bool {
		b, err := os.ReadFile(path)
		line = strings.TrimSpace(string(b))
		return err == nil && len(b) > 0 && b[len(b)-1] == '\n'
	})
	return line
}

// A real pty daemon kills its whole tree, so survivors only happen with a
// daemon that misbehaves (crashes mid-shutdown, or an older version). This
// stand-in exits on TERM and leaves behind a TERM-ignoring child in a
// session of its own, which kill must find from its snapshot and stop by
// escalating to KILL.
func TestKillEscalatesOnSurvivors(t *testing.T) {
	root := t.TempDir()
	childPid := filepath.Join(root, "child.pid")
	// Run as the real daemon is, "pty-daemon <id> <generation> <root>",
	// which kill insists on: sh takes the id as its script's name.
	script := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(script, []byte(`trap 'exit 0' TERM
setsid sh -c 'trap "" TERM; echo $$ > `+childPid+`; exec sleep 1000' &
while :; do sleep 0.05; done
`), 0o600); err != nil {
		t.Fatal(err)
	}
	daemon := &exec.Cmd{Path: "/bin/sh", Args: registry.DaemonArgs(root, "fake", "g1"), Dir: filepath.Dir(script)}
	daemon.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { daemon.Wait(); close(done) }()
	defer func() { daemon.Process.Kill(); <-done }()
	child, _ := strconv.Atoi(waitFile(t, childPid))
	defer syscall.Kill(child, syscall.SIGKILL)

	m := &layout.Metadata{Command: "/bin/sh", CreatedAt: layout.Now(), Generation: "g1", Tags: map[string]string{"strategy": "permanent", "a": "b"}}
	testutil.WriteRecord(t, root, "fake", m)
	os.WriteFile(layout.At(root).Paths("fake").Pid(), []byte(strconv.Itoa(daemon.Process.Pid)), 0o600)
	s, err := layout.At(root).Load("fake")
	if err != nil || s.Status != layout.Running {
		t.Fatalf("fake session: %+v %v", s, err)
	}
	p, _ := procs.Lookup(child)

	res, err := Kill(root, s, KillOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Escalated || len(res.Survivors) != 0 {
		t.Errorf("kill result = %+v, want escalation and no survivors", res)
	}
	if procs.Still(p) {
		t.Errorf("TERM-ignoring child %d survived", child)
	}
	// The dead daemon could not clean up: kill removed its pid file.
	if _, err := os.Stat(layout.At(root).Paths("fake").Pid()); !os.IsNotExist(err) {
		t.Errorf("stale pid file kept: %v", err)
	}
	after, _ := layout.At(root).Metadata("fake")
	if _, ok := after.Tags["strategy"]; ok || after.Tags["a"] != "b" {
		t.Errorf("tags after kill = %v", after.Tags)
	}
	// No lock files are left behind.
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("lock file %s left", e.Name())
		}
	}
}

func TestRemoveChecksTheGeneration(t *testing.T) {
	root := t.TempDir()
	code := 0
	old := &layout.Metadata{Command: "/bin/sh", CreatedAt: layout.Now(), Generation: "aaaa", ExitCode: &code, ExitedAt: layout.Now()}
	newer := old.Clone()
	newer.Generation = "bbbb"
	testutil.WriteRecord(t, root, "x", newer)
	err := Remove(root, layout.Session{ID: "x", Meta: old, Status: layout.Exited}, time.Second)
	if !errors.Is(err, spawn.ErrReplaced) || !strings.Contains(err.Error(), "not removed") {
		t.Errorf("remove of a replaced record: %v", err)
	}
	if _, err := layout.At(root).Metadata("x"); err != nil {
		t.Errorf("replacement removed: %v", err)
	}
	if err := Remove(root, layout.Session{ID: "x", Meta: newer, Status: layout.Exited}, time.Second); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("left after remove: %v", ents)
	}
	err = Remove(root, layout.Session{ID: "y", Meta: old, Status: layout.Running}, time.Second)
	if !errors.Is(err, spawn.ErrRunning) || err.Error() != `Session "y" is running. Stop it first with "pty kill y".` {
		t.Errorf("remove of a running session: %v", err)
	}
}

func TestKillNotRunning(t *testing.T) {
	_, err := Kill(t.TempDir(), layout.Session{ID: "z", Meta: &layout.Metadata{}, Status: layout.Vanished}, KillOptions{})
	if !errors.Is(err, client.ErrNotRunning) || err.Error() != `Session "z" is not running. Use "pty rm z" to remove it.` {
		t.Errorf("kill of a vanished session: %v", err)
	}
}

// A pid file naming a process that is not a pty daemon (a reused pid after
// a crash or reboot) must not get a signal.
func TestKillRefusesAForeignPid(t *testing.T) {
	root := t.TempDir()
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	testutil.WriteRecord(t, root, "old", &layout.Metadata{Command: "/bin/sh", CreatedAt: layout.Now()})
	os.WriteFile(layout.At(root).Paths("old").Pid(), []byte(strconv.Itoa(other.Process.Pid)), 0o600)
	s, _ := layout.At(root).Load("old")
	if s.Status != layout.Vanished {
		t.Errorf("a session whose pid file names a foreign process is %s, want vanished", s.Status)
	}
	// Even handed a Session that claims to run (read before the pid was
	// reused), kill checks the process itself.
	s.Status, s.Pid = layout.Running, other.Process.Pid
	_, err := Kill(root, s, KillOptions{})
	if err == nil || !(strings.Contains(err.Error(), "not a pty daemon") || errors.Is(err, client.ErrNotRunning)) {
		t.Errorf("kill of a foreign pid: %v", err)
	}
	if p, ok := procs.Lookup(other.Process.Pid); !ok || p.Zombie {
		t.Error("the foreign process was signalled")
	}
}

// A daemon that dies of the SIGTERM without recording anything (one just
// started, whose runtime is not up yet) has started nothing: kill records
// the stop, as the daemon would have, and an ephemeral record goes.
func TestKillRecordsAStopTheDaemonCouldNot(t *testing.T) {
	for _, ephemeral := range []bool{false, true} {
		root := testutil.Root(t)
		pid := testutil.FakeDaemon(t, root, "young", "g1")
		m := &layout.Metadata{Command: "/bin/sh", CreatedAt: layout.Now(), Generation: "g1", DaemonPid: pid, Ephemeral: ephemeral}
		testutil.WriteRecord(t, root, "young", m)
		os.WriteFile(layout.At(root).Paths("young").Pid(), []byte(strconv.Itoa(pid)+"\n"), 0o600)
		s, err := layout.At(root).Load("young")
		if err != nil || s.Status != layout.Running {
			t.Fatalf("stand-in session: %+v %v", s, err)
		}
		if _, err := Kill(root, s, KillOptions{}); err != nil {
			t.Fatal(err)
		}
		after, err := layout.At(root).Metadata("young")
		if ephemeral {
			if !errors.Is(err, layout.ErrNotFound) {
				t.Errorf("ephemeral record after kill: %+v %v, want it removed", after, err)
			}
			continue
		}
		if err != nil || after.ExitCode == nil || *after.ExitCode != 143 || after.Signal == nil || *after.Signal != 15 {
			t.Fatalf("record after kill: %+v %v, want exit 143 by signal 15", after, err)
		}
		evs, _ := layout.At(root).Events("young")
		if len(evs) == 0 || evs[len(evs)-1].Type != layout.EventSessionExit {
			t.Errorf("events after kill: %+v, want session_exit last", evs)
		}
	}
}

// One condition, one sentinel: an error of kill or rm matches the same
// sentinel as the same condition met by a connection or a start.
func TestOneSentinelPerCondition(t *testing.T) {
	_, dialErr := client.Dial(testutil.Root(t), "nobody")
	for _, c := range []struct {
		name    string
		err, is error
	}{
		{"kill of a stopped session", NotRunningError("x"), client.ErrNotRunning},
		{"connecting to a session without a socket", dialErr, client.ErrNotRunning},
		{"rm of a running session", RunningError("x"), spawn.ErrRunning},
		{"a start of a running session", spawn.RunningError("x"), spawn.ErrRunning},
		{"rm that found the id taken meanwhile", replacedError("x"), spawn.ErrReplaced},
	} {
		if !errors.Is(c.err, c.is) {
			t.Errorf("%s: %v does not match %v", c.name, c.err, c.is)
		}
	}
}
