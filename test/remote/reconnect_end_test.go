package remote

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// A session that ends while the connection to its host is down: attach
// --remote and peek -f --remote end, once they reach the host again, as
// a local attach and peek -f end on the session's EXIT ("[NAME exited
// with code N]", exit status N), though the session's daemon is gone by
// then and the route is refused; one whose record was removed meanwhile
// ends with one line that says so, exit status 1.
func TestRemoteSessionEndsDuringOutage(t *testing.T) {
	f := newFleet(t)
	// ex (display name exname) exits 7 and rmme 3 when sent a line; kld
	// is stopped with pty kill (its daemon's EXIT says 128 plus the
	// signal's number).
	for id, code := range map[string]string{"ex": "7", "rmme": "3", "kld": ""} {
		script := "echo ready-" + id + "; read x; exit " + code
		if code == "" {
			script = "echo ready-" + id + "; sleep 100"
		}
		testutil.MustRun(t, f.rootA, "run", "-d", "--id", id, "--name", id+"name", "--", "sh", "-c", script)
	}
	pty := filepath.Join(testutil.BinDir(t), "pty")
	// The command's exit status is written below its last words.
	// ref names session id, which prints ready-ID.
	client := func(id, ref string, args ...string) *testutil.Tmux {
		argv := append([]string{"sh", "-c", `"$@"; echo "[rc=$?]"`, "sh", pty, "--remote", "hosta"}, args...)
		tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, append(argv, ref)...)
		tm.WaitText("ready-" + id)
		return tm
	}
	// The host's list is read by the route's rules: a display name, a
	// prefix of an id.
	exAttach, exPeek := client("ex", "exname", "attach"), client("ex", "e", "peek", "-f")
	rmAttach, rmPeek := client("rmme", "rmme", "attach"), client("rmme", "rmme", "peek", "-f")
	kldAttach := client("kld", "kld", "attach")
	all := []*testutil.Tmux{exAttach, exPeek, rmAttach, rmPeek, kldAttach}

	// The host goes out of reach: its sshd stopped, the shared
	// connection closed, which drops every route.
	b, err := os.ReadFile(filepath.Join(f.a.dir, "sshd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("sshd pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	exit := masterExit(f.dir, "hosta")
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	for _, tm := range all {
		tm.WaitText("[reconnecting to hosta")
	}

	// Meanwhile, on the host: ex and rmme exit, kld is killed, and rmme
	// is removed. Each is past the moment its daemon still answers
	// before the host comes back.
	reg := layout.At(f.rootA)
	over := func(id string) bool {
		s, err := reg.Load(id)
		_, serr := os.Stat(reg.Paths(id).Sock())
		return err == nil && s.Status == layout.Exited && os.IsNotExist(serr)
	}
	testutil.MustRun(t, f.rootA, "send", "ex", "--seq", "bye", "--seq", "key:return")
	testutil.MustRun(t, f.rootA, "send", "rmme", "--seq", "bye", "--seq", "key:return")
	testutil.MustRun(t, f.rootA, "kill", "kld")
	for _, id := range []string{"ex", "rmme", "kld"} {
		testutil.WaitFor(t, 20*time.Second, id+" to end on the host", func() bool { return over(id) })
	}
	testutil.MustRun(t, f.rootA, "rm", "rmme")
	if _, err := reg.Load("rmme"); err == nil {
		t.Fatal("rmme is still in the host's registry after pty rm")
	}
	kld, err := reg.Load("kld")
	if err != nil || kld.Meta.ExitCode == nil {
		t.Fatalf("kld's record: %+v %v", kld.Meta, err)
	}
	killedCode := strconv.Itoa(*kld.Meta.ExitCode)
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false

	// Each client ends once a route of its reaches the host (its backoff
	// and an ssh waiting on the stopped server add up to some seconds).
	ends := func(tm *testutil.Tmux, what string, want ...string) {
		t.Helper()
		testutil.WaitForState(t, 60*time.Second, what, func() (bool, string) {
			// Wrapped lines joined, with their spaces (-J).
			scr := tm.Run("capture-pane", "-p", "-J", "-t", "u")
			for _, w := range want {
				if !strings.Contains(scr, w) {
					return false, "screen:\n" + scr
				}
			}
			return true, ""
		})
	}
	ends(exAttach, "attach's end of ex", "[exname exited with code 7]", "[rc=7]")
	ends(exPeek, "peek -f's end of ex", "[e exited with code 7]", "[rc=7]")
	ends(kldAttach, "attach's end of kld", "[kld exited with code "+killedCode+"]", "[rc="+killedCode+"]")
	gone := `Session "rmme" is gone from hosta: it was removed while the connection was down`
	ends(rmAttach, "attach's end of rmme", gone, "[rc=1]")
	ends(rmPeek, "peek -f's end of rmme", gone, "[rc=1]")
	for _, tm := range []*testutil.Tmux{exAttach, exPeek, kldAttach} {
		// What a local attach prints, and nothing of the host's
		// refusal: no "not found", no hint to restart.
		if scr := tm.Screen(); strings.Contains(scr, "not found") || strings.Contains(scr, "restart") {
			t.Fatalf("the end of a session that exited during the outage:\n%s", scr)
		}
	}
	for _, tm := range []*testutil.Tmux{rmAttach, rmPeek} {
		if n := strings.Count(tm.Screen(), "gone from hosta"); n != 1 {
			t.Fatalf("the removed session's end, said %d times:\n%s", n, tm.Screen())
		}
	}
}
