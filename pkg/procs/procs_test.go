package procs

import (
	"github.com/ptyorg/pty/internal/testutil"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, what, cond)
}

func TestTreeStillSignal(t *testing.T) {
	// A shell in its own group with two grandchildren, one of them in a
	// group of its own, like a job-control shell's background job.
	// It waits on stdin, not on its children, so it outlives them.
	cmd := exec.Command("sh", "-c", "sleep 300 & setsid sleep 301 & read x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()

	var tree []Proc
	// Two descendants, the second in its own group: setsid forks before
	// it calls setsid(), so the tree can hold it still in the shell's.
	waitFor(t, "two descendants in two groups", func() bool {
		var err error
		tree, err = Tree(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		return len(tree) == 3 && len(Groups(tree)) == 2
	})
	if tree[0].Pid != cmd.Process.Pid || tree[0].Start == "" {
		t.Fatalf("root = %+v", tree[0])
	}
	for _, p := range tree {
		if !Still(p) {
			t.Errorf("%+v not Still while running", p)
		}
	}
	groups := Groups(tree)
	if len(groups) != 2 {
		t.Errorf("groups = %v, want the shell's and setsid's", groups)
	}
	for _, g := range groups {
		if g == syscall.Getpgrp() || g <= 1 {
			t.Errorf("unsafe group %d", g)
		}
	}
	if g := Groups(tree, cmd.Process.Pid); len(g) != 1 {
		t.Errorf("excluding the shell's group left %v", g)
	}

	// A changed start token means another process: never Still.
	fake := tree[1]
	fake.Start += "0"
	if Still(fake) {
		t.Error("a process with another start token counted as the same")
	}

	// The shell shares a group with its first child: exclude it, as kill
	// excludes the daemon's group.
	Signal(tree[1:], syscall.SIGKILL, cmd.Process.Pid)
	waitFor(t, "the grandchildren to die", func() bool { return len(Survivors(tree[1:])) == 0 })
	if !Still(tree[0]) {
		t.Error("the shell died with its children")
	}
}

func TestZombieIsNotStill(t *testing.T) {
	cmd := exec.Command("sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p, ok := Lookup(cmd.Process.Pid)
	// It may already be a zombie; either way, once it has exited and
	// before we reap it, it must not count.
	waitFor(t, "the child to become a zombie", func() bool {
		cur, ok := Lookup(cmd.Process.Pid)
		return ok && cur.Zombie
	})
	if ok && Still(p) {
		t.Error("zombie counted as still running")
	}
	cmd.Wait()
	if ok && Still(p) {
		t.Error("reaped process counted as still running")
	}
}

func TestComm(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if c := Comm(cmd.Process.Pid); c != "sleep" {
		t.Errorf("Comm = %q, want sleep", c)
	}
	if c := Comm(1 << 30); c != "" {
		t.Errorf("Comm of no process = %q", c)
	}
}

// Ignores reads a process's disposition: the daemon's hangup leaves the
// foreground group to a session leader that does not ignore SIGHUP.
func TestIgnores(t *testing.T) {
	for _, c := range []struct {
		script  string
		ignored bool
	}{{"trap '' HUP; exec sleep 300", true}, {"exec sleep 300", false}} {
		cmd := exec.Command("sh", "-c", c.script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var p Proc
		waitFor(t, "sh to exec sleep", func() bool {
			var ok bool
			p, ok = Lookup(cmd.Process.Pid)
			return ok && Comm(p.Pid) == "sleep"
		})
		ignored, ok := Ignores(p, syscall.SIGHUP)
		cmd.Process.Kill()
		cmd.Wait()
		if !ok && runtime.GOOS == "linux" {
			t.Fatalf("%s: SIGHUP disposition unknown", c.script)
		}
		if ok && ignored != c.ignored {
			t.Errorf("%s: ignores SIGHUP %v, want %v", c.script, ignored, c.ignored)
		}
		if _, ok := Ignores(p, syscall.SIGHUP); ok {
			t.Errorf("%s: the disposition of a process that is gone was read", c.script)
		}
	}
}
