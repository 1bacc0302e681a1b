package testutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// HoldGrace waits for session id in root to record its exit, then stops
// (SIGSTOP) its daemon while it still lingers in its grace period, so that
// a test can act on an exited session whose daemon is alive and whose
// socket still accepts for as long as it needs, whatever the machine's
// load. The session must be running when HoldGrace is called. release
// continues the daemon; it runs at cleanup too.
func HoldGrace(t testing.TB, root, id string) (release func()) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, id+".pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 || !daemonOf(pid, root, id) {
		t.Fatalf("HoldGrace: %s has no live daemon (pid file: %q, %v)", id, b, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !exitRecorded(root, id) {
		if time.Now().After(deadline) {
			t.Fatalf("HoldGrace: %s recorded no exit within 30s", id)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil || !daemonOf(pid, root, id) {
		t.Fatalf("HoldGrace: the daemon of %s ended its grace period before it could be held (%v)", id, err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(release)
	return release
}

// exitRecorded reports whether the session's record has an exit, as
// layout.Metadata.Exited reads it.
func exitRecorded(root, id string) bool {
	b, err := os.ReadFile(filepath.Join(root, id+".json"))
	if err != nil {
		return false
	}
	var m struct {
		ExitCode *int   `json:"exitCode"`
		ExitedAt string `json:"exitedAt"`
	}
	return json.Unmarshal(b, &m) == nil && (m.ExitCode != nil || m.ExitedAt != "")
}
