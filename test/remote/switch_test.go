package remote

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// startShell runs a shell session id in root that first prints n lines
// "ID-line-I", with the prompt "ID$ ".
func startShell(t *testing.T, root, id string, n int) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c",
		fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo %s-line-$i; i=$((i+1)); done; PS1='%s$ ' exec sh`, n, id, id))
	testutil.WaitFor(t, 10*time.Second, id+"'s prompt", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, id+"$")
	})
}

// waitAttached waits until n clients are attached to session id of root.
func waitAttached(t *testing.T, root, id string, n int) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("%d client(s) attached to %s", n, id), func() (bool, string) {
		var st struct{ Clients struct{ Attached int } }
		r := testutil.Run(t, root, "stats", "--json", id)
		json.Unmarshal([]byte(r.Stdout), &st)
		return st.Clients.Attached == n, fmt.Sprintf("%d attached: %s", st.Clients.Attached, r.Stdout)
	})
}

// historyOnce checks that the terminal's lines hold id's n history lines
// once each, in order.
func historyOnce(t *testing.T, tm *testutil.Tmux, id string, n int) {
	t.Helper()
	var got []string
	for _, l := range tm.All() {
		if strings.HasPrefix(l, id+"-line-") {
			got = append(got, l)
		}
	}
	ok := len(got) == n
	for i := 0; ok && i < n; i++ {
		ok = got[i] == id+"-line-"+strconv.Itoa(i+1)
	}
	if !ok {
		t.Fatalf("the terminal's %s lines (want %s-line-1..%d once each, in order): %v\n%s", id, id, n, got, strings.Join(tm.All(), "\n"))
	}
}

// switchIn types "pty switch TO" in tm, which shows session from, and
// waits for to's screen with its n lines of history, to attached and
// from not.
func switchIn(t *testing.T, tm *testutil.Tmux, root, from, to string, n int) {
	t.Helper()
	tm.Keys("pty switch "+to, "Enter")
	tm.WaitText(to + "-line-" + strconv.Itoa(n))
	tm.WaitText(to + "$")
	historyOnce(t, tm, to, n)
	waitAttached(t, root, to, 1)
	waitAttached(t, root, from, 0)
}

// typeInto types a command in tm and waits for its output in session id
// of root and on the terminal.
func typeInto(t *testing.T, tm *testutil.Tmux, root, id, word string) {
	t.Helper()
	tm.Keys("echo "+word+"-$((6*7))", "Enter")
	testutil.WaitFor(t, 10*time.Second, "the keys to reach "+id, func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, word+"-42")
	})
	tm.WaitText(word + "-42")
}

// Typed inside a session attached with --remote, "pty switch B" moves
// that attach, which relays the daemon's frames over ssh, to B on the
// same host: the pane shows B's screen with B's history in its
// scrollback, keys reach B, A goes on detached. The attach then
// reconnects to B, not A, when the ssh process carrying it is killed.
func TestRemoteSwitch(t *testing.T) {
	f := newFleet(t)
	startShell(t, f.rootA, "ra", 3)
	startShell(t, f.rootA, "rb", 60)
	tm := testutil.StartUserTmuxCmd(t, 24, 80, f.env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "attach", "ra")
	tm.WaitText("ra$")
	waitAttached(t, f.rootA, "ra", 1)

	switchIn(t, tm, f.rootA, "ra", "rb", 60)
	var st struct{ Process struct{ Alive bool } }
	json.Unmarshal([]byte(testutil.MustRun(t, f.rootA, "stats", "--json", "ra").Stdout), &st)
	if !st.Process.Alive {
		t.Fatal("ra ended on the switch")
	}
	typeInto(t, tm, f.rootA, "rb", "typed")
	if s := testutil.Run(t, f.rootA, "peek", "--plain", "ra").Stdout; strings.Contains(s, "typed-42") {
		t.Errorf("keys typed after the switch reached ra:\n%s", s)
	}

	// The route to rb is the one reconnected.
	killRoute(t, tm, "the attach")
	waitAttached(t, f.rootA, "rb", 1)
	typeInto(t, tm, f.rootA, "rb", "again")
	historyOnce(t, tm, "rb", 60)
	waitAttached(t, f.rootA, "ra", 0)

	// And back to ra.
	tm.Keys("pty switch ra", "Enter")
	tm.WaitScreen("ra's screen", func(s string) bool {
		return strings.Contains(s, "ra-line-3") && !strings.Contains(s, "again-42")
	})
	waitAttached(t, f.rootA, "ra", 1)
	waitAttached(t, f.rootA, "rb", 0)
	tm.Keys(`C-\`)
	tm.WaitText("[detached]")
}

// The same through a fabric peer, whose route is a local socket served
// by a real "pty remote-serve --socket": the attach relays as over ssh.
func TestRemoteSwitchFabric(t *testing.T) {
	f := newFleet(t)
	startShell(t, f.rootA, "fa", 3)
	startShell(t, f.rootA, "fb", 30)
	sock := filepath.Join(f.dir, "fab.sock")
	serveSocket(t, f.rootA, sock)
	dialSocket(t, sock).Close()
	f.write(t, "fabric", "#!/bin/sh\necho "+sock+"\n")
	syscall.Chmod(filepath.Join(f.dir, "fabric"), 0o755)
	f.write(t, "pty/remotes.toml", "[lap]\nfabric = \"laptop\"\n")
	env := append(f.env, "PTY_FABRIC_BIN="+filepath.Join(f.dir, "fabric"))
	tm := testutil.StartUserTmuxCmd(t, 24, 80, env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "lap", "attach", "fa")
	tm.WaitText("fa$")
	switchIn(t, tm, f.rootA, "fa", "fb", 30)
	typeInto(t, tm, f.rootA, "fb", "typed")
	tm.Keys(`C-\`)
	tm.WaitText("[detached]")
}

// killRoute kills the ssh process that carries what runs in tm and waits
// for the new one it starts.
func killRoute(t *testing.T, tm *testutil.Tmux, what string) {
	t.Helper()
	pane, _ := strconv.Atoi(strings.TrimSpace(tm.Run("display-message", "-p", "-t", "u", "#{pane_pid}")))
	ssh := descendants(pane, "ssh", "remote-serve")
	if len(ssh) != 1 {
		t.Fatalf("ssh processes carrying %s: %v", what, ssh)
	}
	syscall.Kill(ssh[0], syscall.SIGKILL)
	testutil.WaitFor(t, 20*time.Second, "a new ssh process", func() bool {
		n := descendants(pane, "ssh", "remote-serve")
		return len(n) == 1 && n[0] != ssh[0]
	})
}
