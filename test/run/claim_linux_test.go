package run

import (
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// starve makes the calling goroutine's thread, and so whatever it starts,
// run on CPU 0 only, at SCHED_IDLE, and keeps CPU 0 busy at normal
// priority until the returned stop is called: a launcher started from it
// crawls, so a kill sent as one of its files appears lands right there.
func starve(t *testing.T) (stop func()) {
	t.Helper()
	runtime.LockOSThread() // never unlocked: the thread dies with its goroutine
	var cpu0 unix.CPUSet
	cpu0.Set(0)
	if err := unix.SchedSetaffinity(0, &cpu0); err != nil {
		t.Fatalf("sched_setaffinity: %v", err)
	}
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_IDLE}, 0); err != nil {
		t.Fatalf("sched_setattr: %v", err)
	}
	var done atomic.Bool
	spun := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		unix.SchedSetaffinity(0, &cpu0)
		close(spun)
		for !done.Load() {
		}
	}()
	<-spun
	return func() { done.Store(true) }
}

// killAtFile starts "pty run -d --id id -- sleep 300" starved of CPU and
// SIGKILLs it as the file of id with suffix appears in root. It reports
// whether the kill ended the launcher (rather than its own exit).
func killAtFile(t *testing.T, root, id, suffix string) (killed bool) {
	return killAtFileAnd(t, root, id, suffix, false)
}

// killAtFileAnd is killAtFile that, with daemonToo, first kills the
// daemon the launcher started (suffix must come after its pid file), so
// it cannot clean up after it.
func killAtFileAnd(t *testing.T, root, id, suffix string, daemonToo bool) (killed bool) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(root); err != nil {
		t.Fatal(err)
	}
	cmd := testutil.Command(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
	started := make(chan error, 1)
	stop := make(chan func(), 1)
	go func() {
		s := starve(t)
		stop <- s
		started <- cmd.Start()
	}()
	defer func() { (<-stop)() }()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, id+suffix)
	timeout := time.After(30 * time.Second)
watch:
	for {
		select {
		case ev := <-w.Events:
			if ev.Name == target && ev.Has(fsnotify.Create) {
				if daemonToo {
					// By its pid file: starved, it may not have
					// become pty-daemon yet.
					if pid := layout.At(root).Pid(id); pid > 0 {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
				cmd.Process.Kill()
				break watch
			}
		case err := <-w.Errors:
			t.Fatalf("watch %s: %v", root, err)
		case <-timeout:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s never appeared", target)
		}
	}
	cmd.Wait()
	// The daemon it started inherited the starvation: give it the
	// machine back, so what follows does not crawl too.
	for _, pid := range sessionDaemons(t, root, id) {
		unstarve(pid)
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	return ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// unstarve puts every thread of pid back at normal priority on any CPU.
func unstarve(pid int) {
	var all unix.CPUSet
	for i := range runtime.NumCPU() {
		all.Set(i)
	}
	tids, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*")
	for _, p := range tids {
		tid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL}, 0)
		unix.SchedSetaffinity(tid, &all)
	}
}

// TestRunKilledWhileClaimingLeavesTheIDFree kills the launcher as each of
// the files it creates appears: whatever it left, the next run of the id
// starts the session (or, when the launcher had handed everything over,
// finds the first one running), never calls the id in use, and exactly
// one daemon serves it.
func TestRunKilledWhileClaimingLeavesTheIDFree(t *testing.T) {
	root := testutil.Root(t)
	took := map[string]int{}
	suffixes := []string{layout.SuffixLaunch, layout.SuffixSock, layout.SuffixPid, layout.SuffixMeta, layout.SuffixEvents}
	for _, suffix := range suffixes {
		// At least three kills each; more (up to ten) while none has
		// landed in the window yet, which a loaded machine can make rare
		// for the last file.
		for i := 0; i < 3 || (took[suffix] == 0 && i < 10); i++ {
			id := "k" + strings.TrimPrefix(strings.ReplaceAll(suffix, ".", "-"), "-") + strconv.Itoa(i)
			killed := killAtFile(t, root, id, suffix)
			r := testutil.Run(t, root, "run", "-d", "--id", id, "--", "sleep", "300")
			switch {
			case r.Code == 0:
				took[suffix]++
			case strings.Contains(r.Stderr, "already running"):
				// It had handed the daemon its config before the kill
				// landed, or finished: that session is real.
			default:
				t.Fatalf("run --id %s after its launcher was killed as %s appeared (killed: %v): %+v", id, suffix, killed, r)
			}
			testutil.WaitFor(t, 20*time.Second, "one daemon to serve "+id, func() bool {
				s, err := layout.At(root).Load(id)
				return err == nil && s.Status == layout.Running && len(sessionDaemons(t, root, id)) == 1
			})
			testutil.MustRun(t, root, "kill", id)
		}
	}
	for _, suffix := range suffixes {
		if took[suffix] == 0 {
			t.Errorf("no kill at %s left anything to take over (%v): the test did not reach the window", suffix, took)
		}
	}
}

// TestStaleClaimTakenOverAndCleaned: a start whose launcher and daemon
// both died before the daemon had its config leaves files no one will
// remove; the next run of the id takes them over, and gc removes them.
func TestStaleClaimTakenOverAndCleaned(t *testing.T) {
	root := testutil.Root(t)
	for _, id := range []string{"gc1", "run1"} {
		for try := 0; ; try++ {
			killAtFileAnd(t, root, id, layout.SuffixMeta, true)
			testutil.WaitFor(t, 10*time.Second, "the daemons of "+id+" to die", func() bool { return len(sessionDaemons(t, root, id)) == 0 })
			if _, ok := registry.ReadLaunchClaim(root, id); ok {
				t.Logf("%s: a claim left at try %d", id, try)
				break
			}
			// The window is the launcher's, between the record and the
			// config: a loaded machine may need many tries to hit it.
			if try == 40 {
				t.Fatalf("no try left a launch claim of %s behind", id)
			}
			// The launcher had finished: try again.
			testutil.Run(t, root, "kill", id)
			testutil.Run(t, root, "rm", id)
		}
		if s, err := layout.At(root).Load(id); err != nil || s.Status != layout.Vanished {
			t.Fatalf("%s: %+v %v, want a vanished record", id, s, err)
		}
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "run1", "--", "sleep", "300")
	if s, err := layout.At(root).Load("run1"); err != nil || s.Status != layout.Running {
		t.Fatalf("run1 after taking over: %+v %v", s, err)
	}
	// run -d returns before the daemon has its config; it drops the
	// claim once it has.
	testutil.WaitFor(t, 10*time.Second, "run1's daemon to drop its launch claim", func() bool {
		_, ok := registry.ReadLaunchClaim(root, "run1")
		return !ok
	})
	r := testutil.MustRun(t, root, "gc")
	if !strings.Contains(r.Stdout, "gc1") {
		t.Errorf("gc said nothing of gc1:\n%s", r.Stdout)
	}
	for _, name := range testutil.DirNames(t, root) {
		if strings.HasPrefix(name, "gc1.") {
			t.Errorf("gc left %s", name)
		}
	}
}
