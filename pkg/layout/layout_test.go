package layout

import (
	"encoding/json"
	"errors"
	"github.com/ptyorg/pty/internal/testutil"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveRootPrecedence(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		want     string
		warnings int
	}{
		{"PTY_ROOT", map[string]string{"PTY_ROOT": "/r", "HOME": "/h"}, "/r", 0},
		{"legacy", map[string]string{"PTY_SESSION_DIR": "/l", "HOME": "/h"}, "/l", 1},
		{"legacy silent", map[string]string{"PTY_SESSION_DIR": "/l", "PTY_ROOT_LEGACY_SILENT": "1"}, "/l", 0},
		{"both", map[string]string{"PTY_ROOT": "/r", "PTY_SESSION_DIR": "/l"}, "/r", 1},
		{"xdg", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/pty", 0},
		{"home", map[string]string{"HOME": "/h"}, "/h/.local/state/pty", 0},
	}
	for _, c := range cases {
		r, err := ResolveRoot(env(c.env))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Dir != c.want || len(r.Warnings) != c.warnings {
			t.Errorf("%s: got %q with %d warnings %q, want %q with %d", c.name, r.Dir, len(r.Warnings), r.Warnings, c.want, c.warnings)
		}
	}
	long := "/" + strings.Repeat("x", MaxRootLen)
	if _, err := ResolveRoot(env(map[string]string{"PTY_ROOT": long})); err == nil || !strings.Contains(err.Error(), "104") {
		t.Errorf("long root: got %v, want an error naming the 104-byte limit", err)
	}
}

func TestEnsureRootPermissions(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "r")
	if err := EnsureRoot(dir); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("root mode %o, want 700", fi.Mode().Perm())
	}
	os.Chmod(dir, 0o770)
	if err := EnsureRoot(dir); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("group-writable root: got %v", err)
	}
	os.Chmod(dir, 0o700)
	if os.Geteuid() == 0 {
		other := filepath.Join(base, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 12345, 12345)
		if err := EnsureRoot(other); err == nil || !strings.Contains(err.Error(), "owned by uid 12345") {
			t.Errorf("foreign root: got %v", err)
		}
	}
}

func TestValidateID(t *testing.T) {
	good := []string{"a", "web-1", "A.b_c-9", strings.Repeat("x", 255)}
	for _, id := range good {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
	bad := []string{"", ".", "..", "../x", "a/b", strings.Repeat("x", 300), "a\x00b", "a\nb", "a\x1bb", "a b", "é"}
	for _, id := range bad {
		if err := ValidateID(id); err == nil {
			t.Errorf("ValidateID(%q) accepted", id)
		}
	}
	if err := ValidateIDInRoot("/tmp/"+strings.Repeat("r", 80), strings.Repeat("x", 30)); err == nil || !strings.Contains(err.Error(), "104") {
		t.Errorf("socket path limit: %v", err)
	}
}

func TestValidateDisplayName(t *testing.T) {
	good := []string{"web", "my server ✓", strings.Repeat("é", 160), "a/b ../x"}
	for _, n := range good {
		if err := ValidateDisplayName(n); err != nil {
			t.Errorf("ValidateDisplayName(%q) = %v", n, err)
		}
	}
	bad := []string{"", " x", "x ", "a\nb", "a\x00b", "a\x1bb", "a\u2028b", strings.Repeat("é", 161), "\xff"}
	for _, n := range bad {
		if err := ValidateDisplayName(n); err == nil {
			t.Errorf("ValidateDisplayName(%q) accepted", n)
		}
	}
}

func TestMetadataKeepsUnknownFields(t *testing.T) {
	root := t.TempDir()
	in := `{"command":"/bin/sh","args":["-c","x"],"displayCommand":"sh -c x","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z","futureField":{"a":[1,2]},"zeta":"z"}`
	os.WriteFile(pathsFor(root, "s").Meta(), []byte(in), 0o600)
	if _, err := updateRecord(root, "s", func(m *Metadata) ([]Event, error) {
		m.Tags = map[string]string{"k": "v"}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(pathsFor(root, "s").Meta())
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	if all["zeta"] != "z" || all["futureField"] == nil || all["tags"] == nil {
		t.Errorf("unknown fields lost or change missing: %s", b)
	}
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	name := func(s string) *string { return &s }
	for id, n := range map[string]*string{"aaa": name("web"), "bbb": name("db"), "ccc": name("db"), "web": nil} {
		writeRecord(root, id, &Metadata{Command: "/bin/true", DisplayName: n, CreatedAt: Now()})
	}
	if s, err := resolve(root, "web"); err != nil || s.ID != "web" {
		t.Errorf("exact id must win over a display name: %v %v", s.ID, err)
	}
	if s, err := resolve(root, "aaa"); err != nil || s.ID != "aaa" {
		t.Errorf("id: %v %v", s.ID, err)
	}
	_, err := resolve(root, "db")
	if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), "bbb, ccc") {
		t.Errorf("ambiguous: %v", err)
	}
	_, err = resolve(root, "nope")
	if err == nil || err.Error() != `Session "nope" not found.` || !errors.Is(err, ErrNotFound) {
		t.Errorf("not found: %v", err)
	}
}

func TestStatusDerived(t *testing.T) {
	root := t.TempDir()
	code := 3
	writeRecord(root, "ex", &Metadata{Command: "x", ExitCode: &code, ExitedAt: Now()})
	writeRecord(root, "van", &Metadata{Command: "x"})
	writeRecord(root, "run", &Metadata{Command: "x"})
	os.WriteFile(pathsFor(root, "run").Pid(), []byte(itoa(testutil.FakeDaemon(t, root, "run", "0123"))), 0o600)
	// A pid file naming a live process that is not a daemon (a pid reused
	// after a reboot) must not read as running.
	writeRecord(root, "reused", &Metadata{Command: "x"})
	os.WriteFile(pathsFor(root, "reused").Pid(), []byte(itoa(os.Getpid())), 0o600)
	dead := deadPid(t)
	os.WriteFile(pathsFor(root, "van").Pid(), []byte(itoa(dead)), 0o600)
	before := snapshot(t, root)
	ss, err := listSlow(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, s := range ss {
		got[s.ID] = s.Status
	}
	want := map[string]Status{"ex": Exited, "van": Vanished, "run": Running, "reused": Vanished}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: status %q, want %q", k, got[k], v)
		}
	}
	if after := snapshot(t, root); after != before {
		t.Errorf("listing changed the root:\n%s\n---\n%s", before, after)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// deadPid returns the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func snapshot(t *testing.T, dir string) string {
	var b strings.Builder
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + " " + fi.Mode().String() + " " + fi.ModTime().String() + " " + string(data) + "\n")
	}
	return b.String()
}

func TestStaleLockReclaim(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.lock")

	os.WriteFile(p, []byte(itoa(deadPid(t))), 0o600)
	l, err := acquireLock(p, 0)
	if err != nil {
		t.Fatalf("dead holder not reclaimed: %v", err)
	}
	l.Release()

	os.WriteFile(p, []byte("garbage"), 0o600)
	l, err = acquireLock(p, 0)
	if err != nil {
		t.Fatalf("garbage lock not reclaimed: %v", err)
	}
	l.Release()
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("release left the lock file")
	}

	// A live holder (a sleeping child) must not be reclaimed.
	cmd := exec.Command("sleep", "30")
	cmd.Start()
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	os.WriteFile(p, []byte(itoa(cmd.Process.Pid)), 0o600)
	start := time.Now()
	if _, err := acquireLock(p, 50*time.Millisecond); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("live lock: got %v, want ErrLockBusy", err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Errorf("did not wait for the busy lock")
	}
	// Once the holder dies the lock is reclaimed by a waiter.
	cmd.Process.Kill()
	cmd.Wait()
	if l, err := acquireLock(p, 2*time.Second); err != nil {
		t.Fatalf("lock of a holder that died: %v", err)
	} else {
		l.Release()
	}
}

// Without a pid file, liveness falls back to the socket: a socket file
// nobody listens on (a crash's debris) is no daemon, and where the kernel
// names the listener, neither is a socket another program listens on
// (this test's own: the name of a dead daemon's socket, bound since).
func TestDaemonAliveBySocket(t *testing.T) {
	root := t.TempDir()
	sock := pathsFor(root, "s").Sock()
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if alive, pid := daemonAlive(root, "s"); alive != !peerCredKnown || pid != 0 {
		t.Errorf("socket another program listens on: alive %v pid %d, want %v 0", alive, pid, !peerCredKnown)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatal(err)
	}
	if alive, _ := daemonAlive(root, "s"); alive {
		t.Error("socket nobody listens on: alive")
	}
	if alive, _ := daemonAlive(root, "none"); alive {
		t.Error("no socket: alive")
	}
}

// writeRecord writes a record as pty does, unlocked: tests fabricate
// states no command makes.
func writeRecord(root, id string, m *Metadata) error { return writeMetadata(root, id, m, true) }
