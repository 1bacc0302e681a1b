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
)

// The reconnects of attach --remote and peek -f --remote, in a real
// terminal (tmux) whose scrollback and screen must end up holding every
// line the session printed exactly once, in order: the lines printed
// while the connection was down go into the scrollback on the reattach,
// and none that the terminal already has.

// The ssh process carrying the attach is killed, then the host's
// remote-serve, both while the session prints.
func TestRemoteAttachReconnectDrops(t *testing.T) { testReconnectFollow(t, "attach", dropTwice) }

// peek -f, the same.
func TestRemotePeekFollowReconnectDrops(t *testing.T) {
	testReconnectFollow(t, "peek", dropTwice)
}

// The user's terminal is resized (taller and narrower) while the host is
// out of reach.
func TestRemoteAttachReconnectResized(t *testing.T) {
	testReconnectFollow(t, "attach", resizedOutage)
}

func TestRemotePeekFollowReconnectResized(t *testing.T) {
	testReconnectFollow(t, "peek", resizedOutage)
}

// counterScript prints pre1..pre30 and ready, waits for a line, then
// n1..n300, stopping at n150 for another line, and END.
const counterScript = `i=0; while [ $i -lt 30 ]; do i=$((i+1)); echo pre$i; done; echo ready; read x; echo got-$x; ` +
	`i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo n$i; [ $i = 150 ] && read y; sleep 0.02; done; echo END; sleep 100`

func testReconnectFollow(t *testing.T, mode string, outage func(*testing.T, *fleet, *testutil.Tmux)) {
	f := newFleet(t)
	// ssh, but a route asked for while the file cut exists (which it
	// removes) passes on only the host's ack line: the connection drops
	// before the session's first frame.
	f.write(t, "cutssh", "#!/bin/sh\n"+
		"conf="+filepath.Join(f.dir, "ssh_config")+"; cut="+filepath.Join(f.dir, "cut")+"\n"+
		"case \"$*\" in *remote-serve*) if rm \"$cut\" 2>/dev/null; then ssh -F \"$conf\" \"$@\" | head -c 12; exit 0; fi;; esac\n"+
		"exec ssh -F \"$conf\" \"$@\"\n")
	f.env = append(f.env, "PTY_SSH_COMMAND=sh "+filepath.Join(f.dir, "cutssh"))
	// The session has the terminal's size, which a follower's does not
	// set.
	testutil.MustRun(t, f.rootA, "run", "-d", "--rows", "12", "--cols", "60", "--id", "ctr", "--", "sh", "-c", counterScript)
	onHost := func(s string) bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, s)
	}
	testutil.WaitFor(t, 15*time.Second, "ready", func() bool { return onHost("ready") })
	pty := filepath.Join(testutil.BinDir(t), "pty")
	args := []string{pty, "--remote", "hosta", "attach", "ctr"}
	if mode == "peek" {
		args = []string{pty, "--remote", "hosta", "peek", "-f", "ctr"}
	}
	tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, args...)
	tm.WaitText("ready")
	send := func(word string) { testutil.MustRun(t, f.rootA, "send", "ctr", "--seq", word, "--seq", "key:return") }
	send("go")
	tm.WaitText("n20")
	outage(t, f, tm)
	testutil.WaitFor(t, 20*time.Second, "n150 on the host", func() bool { return onHost("n150") })
	tm.WaitText("n150")
	send("more")
	tm.WaitText("END")

	all := tm.All()
	var ns, pre []string
	for _, l := range all {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "n") && len(l) > 1 && strings.Trim(l[1:], "0123456789") == "" {
			ns = append(ns, l)
		}
		if strings.HasPrefix(l, "pre") {
			pre = append(pre, l)
		}
	}
	dump := strings.Join(all, "\n")
	for i := 0; i < 300; i++ {
		if len(ns) != 300 || ns[i] != "n"+strconv.Itoa(i+1) {
			t.Fatalf("the terminal's n lines (want n1..n300 once each, in order): %v\n%s", ns, dump)
		}
	}
	// attach writes the whole history first; peek -f shows the screen,
	// whose lines are the last of them.
	first := 1
	if mode == "peek" && len(pre) > 0 {
		first, _ = strconv.Atoi(strings.TrimPrefix(pre[0], "pre"))
	}
	for i, l := range pre {
		if l != "pre"+strconv.Itoa(first+i) {
			t.Fatalf("the terminal's pre lines: %v\n%s", pre, dump)
		}
	}
	if len(pre) == 0 || pre[len(pre)-1] != "pre30" || (mode == "attach" && len(pre) != 30) {
		t.Fatalf("the terminal's pre lines: %v\n%s", pre, dump)
	}
	tm.Keys(`C-\`)
	tm.WaitText("[detached]")
}

// dropTwice kills the ssh process that carries the connection, and once
// a new one carries it, the host's remote-serve serving it, each while
// the session prints.
func dropTwice(t *testing.T, f *fleet, tm *testutil.Tmux) {
	t.Helper()
	killRoute(t, tm, "the connection")
	tm.WaitText("n60")
	serve := serving(f.rootA)
	if len(serve) != 1 {
		t.Fatalf("remote-serve processes on the host: %v", serve)
	}
	syscall.Kill(serve[0], syscall.SIGKILL)
	testutil.WaitFor(t, 20*time.Second, "a new remote-serve", func() bool {
		n := serving(f.rootA)
		return len(n) == 1 && n[0] != serve[0]
	})
}

// resizedOutage takes hosta away (its sshd stopped, the shared
// connection closed, which drops the route), resizes the terminal while
// the client is reconnecting, and brings the host back once the session
// has printed on to n150.
func resizedOutage(t *testing.T, f *fleet, tm *testutil.Tmux) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.a.dir, "sshd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("sshd pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGCONT)
	exit := masterCtl(f.dir, "sh "+filepath.Join(f.dir, "cutssh"), "hosta", "exit")
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	tm.WaitText("[reconnecting to hosta")
	tm.Run("resize-window", "-t", "u", "-x", "50", "-y", "16")
	testutil.WaitFor(t, 20*time.Second, "n150 on the host", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, "n150")
	})
}

// A reattach whose connection drops right after the host's answer,
// before the baseline (ssh passes on the route's ack and nothing more),
// is one more drop: the attach tries again and loses nothing.
func TestRemoteAttachReconnectDropBeforeBaseline(t *testing.T) {
	testReconnectFollow(t, "attach", dropBeforeBaseline)
}

func TestRemotePeekFollowReconnectDropBeforeBaseline(t *testing.T) {
	testReconnectFollow(t, "peek", dropBeforeBaseline)
}

// dropBeforeBaseline kills the ssh process carrying the connection
// while the next route is set to end after its ack (cutSSH).
func dropBeforeBaseline(t *testing.T, f *fleet, tm *testutil.Tmux) {
	t.Helper()
	cut := filepath.Join(f.dir, "cut")
	f.write(t, "cut", "")
	pane, _ := strconv.Atoi(strings.TrimSpace(tm.Run("display-message", "-p", "-t", "u", "#{pane_pid}")))
	ssh := sshCarriers(pane)
	if len(ssh) != 1 {
		t.Fatalf("ssh processes carrying the connection: %v", ssh)
	}
	syscall.Kill(ssh[0], syscall.SIGKILL)
	testutil.WaitFor(t, 20*time.Second, "the cut route", func() bool {
		_, err := os.Stat(cut)
		return os.IsNotExist(err)
	})
}

// sshCarriers are the ssh processes below pid that carry a route.
func sshCarriers(pid int) []int {
	var out []int
	for _, p := range descendants(pid, "remote-serve") {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm"); strings.TrimSpace(string(b)) == "ssh" {
			out = append(out, p)
		}
	}
	return out
}
