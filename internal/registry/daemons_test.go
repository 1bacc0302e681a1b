package registry

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startAs runs a shell under the arguments "pty-daemon id gen root", as
// testutil.FakeDaemon does; script is what it runs. It is stopped at
// cleanup.
func startAs(t *testing.T, root, id, gen, script string) *exec.Cmd {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, id), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: "/bin/sh", Args: []string{"pty-daemon", id, gen, root}, Dir: dir, Stdin: r}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close(); cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A daemon's child between fork and exec carries the daemon's arguments;
// Daemons must not take it for a second daemon (pty recover would signal
// the session's program). A subshell is such a child, for as long as it
// runs.
func TestDaemonsLeavesOutADaemonsForkedChild(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	d := startAs(t, root, "ses", "g1", "( read x )\n")
	startAs(t, other, "ses", "g1", "read x\n")
	var got []LiveDaemon
	deadline := time.Now().Add(10 * time.Second)
	for {
		kids, _ := os.ReadFile("/proc/" + strconv.Itoa(d.Process.Pid) + "/task/" + strconv.Itoa(d.Process.Pid) + "/children")
		if len(strings.Fields(string(kids))) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subshell did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, err := Daemons(root)
	if err != nil {
		t.Skip(err)
	}
	if len(got) != 1 || got[0].Proc.Pid != d.Process.Pid || got[0].ID != "ses" || got[0].Generation != "g1" {
		t.Fatalf("Daemons(root) = %+v, want only pid %d (ses g1)", got, d.Process.Pid)
	}
}
