//go:build linux

// Package chaos puts a whole registry through what goes wrong at once on a
// real machine: a session flooding output to clients that never read, a
// daemon killed by the OOM killer (SIGKILL), a disk that fills up, and
// several programs writing tags, state and events concurrently. It then
// checks what a user relies on afterwards: every record is readable, every
// session is listed, the survivors still answer, and no process of a dead
// session is left running untracked.
package chaos

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// smallDisk mounts a tmpfs of size bytes as the registry root, so that a
// full disk is real: the kernel's ENOSPC, not a simulation.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	root := testutil.Root(t)
	if os.Geteuid() != 0 {
		testutil.MissingTool(t, "root, to mount a small tmpfs as a full disk")
	}
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=0700"); err != nil {
		testutil.MissingTool(t, "a tmpfs mount ("+err.Error()+")")
	}
	// Registered after Root's cleanup, so it runs first: daemons are
	// stopped here, then the mount goes, then Root removes the directory.
	t.Cleanup(func() {
		testutil.KillDaemons(root)
		for i := 0; i < 50; i++ {
			if syscall.Unmount(root, 0) == nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		syscall.Unmount(root, syscall.MNT_DETACH)
	})
	return root
}

// fill writes a file until the disk is full and returns its path.
func fill(t *testing.T, root string) string {
	t.Helper()
	p := filepath.Join(root, "zz-filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatalf("create filler: %v", err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			break
		}
	}
	// Small writes can still land in a partly used page; eat those too.
	for {
		if _, err := f.Write(buf[:512]); err != nil {
			break
		}
	}
	return p
}

// stuckClient attaches to a session and then never reads, as a client on
// a frozen laptop does.
func stuckClient(t *testing.T, sock string, attach bool) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial %s: %v", sock, err)
	}
	typ, payload := proto.Peek, []byte{0}
	if attach {
		typ, payload = proto.Attach, proto.Size(50, 200)
	}
	if err := proto.WriteFrame(c, typ, payload); err != nil {
		t.Fatalf("attach: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sessionProcs lists the processes whose environment names session id in
// root: what a session started, wherever it has been reparented to.
func sessionProcs(root, id string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		env := "\x00" + string(b)
		if strings.Contains(env, "\x00PTY_SESSION="+id+"\x00") && strings.Contains(env, "\x00PTY_ROOT="+root+"\x00") {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
					continue
				}
			}
			out = append(out, pid)
		}
	}
	return out
}

// vmHWM is a process's peak resident memory in KiB.
func vmHWM(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

func pidOf(t *testing.T, root, id string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, id+".pid"))
	if err != nil {
		t.Fatalf("%s has no pid file: %v", id, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("%s.pid: %v", id, err)
	}
	return pid
}

func TestChaos(t *testing.T) {
	root := smallDisk(t, 8<<20)
	env := testutil.Env(t, root)
	run := func(args ...string) testutil.Result {
		cmd := testutil.Command(t, root, "", args...)
		cmd.Env = env
		return testutil.RunCmd(t, cmd)
	}
	must := func(args ...string) testutil.Result {
		t.Helper()
		r := run(args...)
		if r.Code != 0 {
			t.Fatalf("pty %v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		return r
	}

	// A flood, a session that ignores SIGHUP (its loop outlives a killed
	// daemon unless pty stops it), and quiet sessions the writers use.
	must("run", "-d", "--id", "flood", "--", "yes", "chaos flood line")
	must("run", "-d", "--id", "hup", "--", "sh", "-c", `trap "" HUP; while :; do sleep 0.2; done`)
	quiet := []string{"q1", "q2", "q3"}
	for _, id := range quiet {
		must("run", "-d", "--id", id, "--", "sleep", "600")
	}
	floodPid := pidOf(t, root, "flood")
	t.Cleanup(func() {
		// Whatever the outcome, leave no process of this test behind.
		for _, id := range append([]string{"flood", "hup"}, quiet...) {
			for _, pid := range sessionProcs(root, id) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})

	// Clients that never read: attached writers and read-only followers.
	for i := 0; i < 24; i++ {
		stuckClient(t, filepath.Join(root, "flood.sock"), i%2 == 0)
	}

	// Concurrent writers on the same records, for a bounded number of
	// rounds each, while the disk fills up under them.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	writer := func(args ...string) {
		defer wg.Done()
		for i := 0; i < 8; i++ {
			a := make([]string, len(args))
			for j, s := range args {
				a[j] = strings.ReplaceAll(s, "N", strconv.Itoa(i))
			}
			r := run(a...)
			// A write may fail once the disk is full; it must then say so
			// in one line and exit 1, never crash or print a trace.
			if r.Code != 0 && (r.Code != 1 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || strings.Contains(r.Stderr, "goroutine")) {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("pty %v: exit %d: %q", a, r.Code, r.Stderr))
				mu.Unlock()
			}
		}
	}
	for _, id := range quiet {
		wg.Add(3)
		go writer("tag", id, "round=N", "owner=chaos")
		go writer("state", "set", id, "progress", "N")
		go writer("emit", id, "chaos.tick", `{"n":N}`)
	}

	filler := fill(t, root)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("writers failed badly on a full disk:\n%s", strings.Join(bad, "\n"))
	}

	// The OOM killer takes the daemon of the HUP-ignoring session.
	hupPid := pidOf(t, root, "hup")
	testutil.WaitFor(t, 10*time.Second, "hup's loop to start", func() bool { return len(sessionProcs(root, "hup")) > 1 })
	syscall.Kill(hupPid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "hup's daemon to die", func() bool {
		return syscall.Kill(hupPid, 0) != nil || isZombie(hupPid)
	})

	// Room again: the disk comes back, as after a user clears it.
	os.Remove(filler)

	// pty kill must stop what is left of the dead session and say so.
	r := run("kill", "hup")
	if r.Code != 0 {
		t.Errorf("kill hup after its daemon died: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	testutil.WaitFor(t, 10*time.Second, "hup's leftover processes to stop", func() bool { return len(sessionProcs(root, "hup")) == 0 })

	// The flood's daemon kept going, within a bounded amount of memory,
	// and still answers.
	if syscall.Kill(floodPid, 0) != nil {
		t.Fatalf("the flood's daemon died under stuck clients")
	}
	if kb := vmHWM(floodPid); kb > 256<<10 {
		t.Errorf("the flood's daemon peaked at %d MiB with stuck clients", kb>>10)
	}
	must("peek", "--plain", "flood")

	// Every record is whole and every session is listed.
	ents, _ := os.ReadDir(root)
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, e.Name()))
		if err != nil || !json.Valid(b) {
			t.Errorf("%s is not whole after the chaos: %v %q", e.Name(), err, b)
		}
	}
	var list []struct {
		ID     string `json:"name"`
		Status string `json:"status"`
	}
	lr := must("list", "--json")
	if err := json.Unmarshal([]byte(lr.Stdout), &list); err != nil {
		t.Fatalf("list --json: %v\n%s", err, lr.Stdout)
	}
	listed := map[string]string{}
	for _, s := range list {
		listed[s.ID] = s.Status
	}
	for _, id := range append([]string{"flood"}, quiet...) {
		if listed[id] != "running" {
			t.Errorf("%s is listed as %q after the chaos, want running (list: %v)", id, listed[id], listed)
		}
	}

	// gc then leaves nothing of any session untracked.
	must("gc")
	must("kill", "flood")
	for _, id := range quiet {
		must("kill", id)
	}
	for _, id := range append([]string{"flood", "hup"}, quiet...) {
		if ps := sessionProcs(root, id); len(ps) > 0 {
			t.Errorf("processes of %s still run after kill and gc: %v", id, ps)
		}
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}
