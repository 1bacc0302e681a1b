package remote

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	rt "github.com/ptyorg/pty/pkg/remote"
)

// fleet is two ssh servers on 127.0.0.1 with registries of their own,
// standing for two hosts, hosta and hostb, in an ssh config and a
// remotes.toml of the test's, and a local registry.
type fleet struct {
	local, rootA, rootB string
	a, b                *sshHost
	dir                 string // the ssh config, remotes.toml, the runtime directory
	env                 []string
}

func newFleet(t *testing.T) *fleet {
	t.Helper()
	return newFleetPath(t, "")
}

// newFleetPath is newFleet whose hosts' PATH starts with dir (programs
// of the test's, plugins say) when it is not "".
func newFleetPath(t *testing.T, dir string) *fleet {
	t.Helper()
	f := &fleet{local: testutil.Root(t), rootA: testutil.Root(t), rootB: testutil.Root(t)}
	path := "PATH=" + testutil.BinDir(t) + ":/usr/local/bin:/usr/bin:/bin"
	if dir != "" {
		path = "PATH=" + dir + ":" + strings.TrimPrefix(path, "PATH=")
	}
	f.a = startSSH(t, f.rootA, path)
	f.b = startSSH(t, f.rootB, path)
	dir, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The shared connections' masters exit with their sockets' directory
		// gone at the next check; stop them now.
		stopMasters(dir)
		os.RemoveAll(dir)
	})
	f.dir = dir
	var conf strings.Builder
	for name, h := range map[string]*sshHost{"hosta": f.a, "hostb": f.b} {
		fmt.Fprintf(&conf, "Host %s\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n",
			name, h.port, filepath.Join(h.dir, "user"), filepath.Join(h.dir, "known_hosts"))
	}
	f.write(t, "ssh_config", conf.String())
	f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\n\n[hostb]\nssh = \"hostb\"\n")
	os.MkdirAll(filepath.Join(dir, "run"), 0o700)
	f.env = append(testutil.Env(t, f.local),
		"PTY_SSH_COMMAND=ssh -F "+filepath.Join(dir, "ssh_config"),
		"XDG_CONFIG_HOME="+dir, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	return f
}

func (f *fleet) write(t *testing.T, name, body string) {
	t.Helper()
	p := filepath.Join(f.dir, name)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pty runs "pty args..." here, against the fleet.
func (f *fleet) pty(t *testing.T, stdin string, args ...string) testutil.Result {
	t.Helper()
	cmd := exec.Command(filepath.Join(testutil.BinDir(t), "pty"), args...)
	cmd.Env = f.env
	cmd.Stdin = strings.NewReader(stdin)
	return testutil.RunCmd(t, cmd)
}

func (f *fleet) mustPty(t *testing.T, args ...string) testutil.Result {
	t.Helper()
	r := f.pty(t, "", args...)
	if r.Code != 0 {
		t.Fatalf("pty %q: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// masterExit is "ssh -O exit HOST" for pty's shared connection to HOST
// (a host of the ssh config in dir), which stops its master.
func masterExit(dir, host string) *exec.Cmd {
	return masterCtl(dir, "ssh -F "+filepath.Join(dir, "ssh_config"), host, "exit")
}

// stopMasters stops the masters of every shared connection made with
// the runtime directory of dir, whatever PTY_SSH_COMMAND made them.
func stopMasters(dir string) {
	socks, _ := filepath.Glob(filepath.Join(dir, "run", "pty-ssh", "*"))
	for _, s := range socks {
		exec.Command("ssh", "-F", "/dev/null", "-o", "ControlPath="+s, "-O", "exit", "any").Run()
	}
}

// masterCtl is "ssh -O op HOST" for the shared connection that pty makes
// with sshCommand (PTY_SSH_COMMAND) to HOST, a host of the ssh config in
// dir.
func masterCtl(dir, sshCommand, host, op string) *exec.Cmd {
	env := map[string]string{"PTY_SSH_COMMAND": sshCommand, "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	path, err := rt.Target{SSH: host}.ControlPath(func(k string) string { return env[k] })
	if err != nil {
		panic(err)
	}
	return exec.Command("ssh", "-F", filepath.Join(dir, "ssh_config"), "-o", "ControlPath="+path, "-O", op, host)
}

// accepted counts the logins a server has let in.
func (h *sshHost) accepted() int { return strings.Count(h.logs.String(), "Accepted publickey") }

func TestRemoteListPeekSend(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "far", "--", "sh", "-c", "echo far-away; while read x; do echo typed-$x; done")
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "other", "--", "sleep", "100")
	testutil.WaitFor(t, 15*time.Second, "far's output", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "far").Stdout, "far-away")
	})

	// The three spellings and PTY_REMOTE.
	for _, args := range [][]string{{"--remote", "hosta", "list", "--json"}, {"list", "--remote", "hosta", "--json"}, {"list", "--json", "--remote=hosta"}} {
		r := f.mustPty(t, args...)
		if !strings.Contains(r.Stdout, `"far"`) || strings.Contains(r.Stdout, `"other"`) {
			t.Fatalf("pty %q: %s", args, r.Stdout)
		}
	}
	f.env = append(f.env, "PTY_REMOTE=hostb")
	if r := f.mustPty(t, "list"); !strings.Contains(r.Stdout, "other") || strings.Contains(r.Stdout, "far") {
		t.Fatalf("PTY_REMOTE=hostb pty list: %s", r.Stdout)
	}
	f.env = f.env[:len(f.env)-1]

	if r := f.mustPty(t, "--remote", "hosta", "peek", "--plain", "far"); r.Stdout != "far-away\n" {
		t.Fatalf("peek --plain: %q", r.Stdout)
	}
	if r := f.mustPty(t, "peek", "--remote", "hosta", "--full", "far"); !strings.Contains(r.Stdout, "far-away") {
		t.Fatalf("peek --full: %q", r.Stdout)
	}
	// --wait sees what a send types, both over routes.
	wait := exec.Command(filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "peek", "--plain", "--wait", "typed-qq", "-t", "20", "far")
	wait.Env = f.env
	var out testutil.SyncBuffer
	wait.Stdout = &out
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	f.mustPty(t, "--remote", "hosta", "send", "far", "--seq", "qq", "--seq", "key:return")
	done := make(chan error, 1)
	go func() { done <- wait.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(out.String(), "typed-qq") {
			t.Fatalf("peek --wait: %v %q", err, out.String())
		}
	case <-time.After(30 * time.Second):
		wait.Process.Kill()
		t.Fatal("peek --wait did not return")
	}
	// send - types standard input.
	if r := f.pty(t, "zz\n", "--remote", "hosta", "send", "far", "-"); r.Code != 0 {
		t.Fatalf("send -: %+v", r)
	}
	testutil.WaitFor(t, 15*time.Second, "typed-zz on the host", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "far").Stdout, "typed-zz")
	})
	// A session the host does not have: the host's own word, exit 1.
	r := f.pty(t, "", "--remote", "hosta", "peek", "nosuch")
	if r.Code != 1 || !strings.Contains(r.Stderr, "nosuch") {
		t.Fatalf("peek of a missing session: %+v", r)
	}
	if r := f.pty(t, "", "--remote", "hosta", "send", "nosuch", "x"); r.Code != 1 || !strings.Contains(r.Stderr, `session "nosuch" not found`) {
		t.Fatalf("send to a missing session: %+v", r)
	}
}

// Arguments reach pty on the host exactly: no shell there reads them.
func TestRemotePassthroughArguments(t *testing.T) {
	f := newFleet(t)
	hostile := []string{"a;b", "it's", `"dq"`, "sp ace", "new\nline", "$(echo no)", "`echo no`", `back\slash`, `\\`, "", "*", "$HOME", "-x", "!x"}
	args := append([]string{"--remote", "hosta", "run", "-d", "--id", "hostile", "--", "printf", "<%s>\\n"}, hostile...)
	f.mustPty(t, args...)
	var want strings.Builder
	for _, h := range hostile {
		want.WriteString("<" + h + ">\n")
	}
	testutil.WaitFor(t, 15*time.Second, "the printf to finish", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "hostile").Stdout, "<!x>")
	})
	got := testutil.Run(t, f.rootA, "peek", "--plain", "hostile").Stdout
	if !strings.HasPrefix(got, want.String()) {
		t.Fatalf("the arguments on the host:\n%s\nwant:\n%s", got, want.String())
	}
	// Exit status and standard error come back.
	r := f.pty(t, "", "--remote", "hosta", "kill", "nosuch")
	if r.Code != 1 || !strings.Contains(r.Stderr, "nosuch") {
		t.Fatalf("kill nosuch on the host: %+v", r)
	}
	// Standard input goes there.
	f.mustPty(t, "--remote", "hosta", "run", "-d", "--id", "st", "--", "sleep", "100")
	if r := f.pty(t, `{"k":"from stdin"}`, "--remote", "hosta", "state", "set", "st", "k", "-"); r.Code != 0 {
		t.Fatalf("state set - on the host: %+v", r)
	}
	if r := testutil.MustRun(t, f.rootA, "state", "get", "st", "k"); strings.TrimSpace(r.Stdout) != `{"k":"from stdin"}` {
		t.Fatalf("the value the host got from our standard input: %q", r.Stdout)
	}
}

// A second command to a host reuses the first one's connection: one
// login on the server for both, and a control socket in the private
// directory.
func TestRemoteConnectionSharing(t *testing.T) {
	f := newFleet(t)
	f.mustPty(t, "--remote", "hosta", "list")
	f.mustPty(t, "--remote", "hosta", "list", "--json")
	f.pty(t, "", "--remote", "hosta", "peek", "--plain", "nosuch") // exit 1: no such session
	if n := f.a.accepted(); n != 1 {
		t.Fatalf("%d logins for three commands, want 1 (shared connection):\n%s", n, f.a.logs.String())
	}
	dir := filepath.Join(f.dir, "run", "pty-ssh")
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("control directory: %v %v", fi, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Type()&os.ModeSocket == 0 {
		t.Fatalf("control directory holds %v, want one socket", ents)
	}
}

func TestRemoteFleetList(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.local, "run", "-d", "--id", "here", "--", "sleep", "100")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "ona", "--", "sleep", "100")
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "onb", "--", "sleep", "100")
	// A third host whose port nobody listens on.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\n[down]\nssh = \"ssh://127.0.0.1:"+strconv.Itoa(dead)+"\"\n[hostb]\nssh = \"hostb\"\n")
	start := time.Now()
	r := f.mustPty(t, "list", "--remote", "--json")
	var got struct {
		Local  []struct{ Name string }
		Remote []struct {
			Label    string
			Sessions []struct{ Name, Status string }
			Error    *string
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if len(got.Local) != 1 || got.Local[0].Name != "here" || len(got.Remote) != 3 {
		t.Fatalf("fleet: %s", r.Stdout)
	}
	a, down, b := got.Remote[0], got.Remote[1], got.Remote[2]
	if a.Label != "hosta" || a.Error != nil || len(a.Sessions) != 1 || a.Sessions[0].Name != "ona" ||
		b.Label != "hostb" || b.Error != nil || len(b.Sessions) != 1 || b.Sessions[0].Name != "onb" ||
		down.Label != "down" || down.Error == nil || !strings.Contains(*down.Error, "unreachable") {
		t.Fatalf("fleet: %s", r.Stdout)
	}
	t.Logf("fleet list with a host down took %v", time.Since(start))
	r = f.mustPty(t, "list", "--all-hosts")
	for _, want := range []string{"here", "hosta (1 session):", "(ona) — ", "hostb (1 session):", "(onb) — ", "down (error: down is unreachable"} {
		if !strings.Contains(r.Stdout, want) {
			t.Fatalf("fleet text lacks %q:\n%s\n%s", want, r.Stdout, r.Stderr)
		}
	}
}

// Each way of not reaching a host is one line that says what to do, exit
// 1, soon.
func TestRemoteErrors(t *testing.T) {
	f := newFleet(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	empty := filepath.Join(f.dir, "empty_known_hosts")
	f.write(t, "empty_known_hosts", "")
	stranger := filepath.Join(f.dir, "stranger")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", stranger).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	conf, _ := os.ReadFile(filepath.Join(f.dir, "ssh_config"))
	f.write(t, "ssh_config", fmt.Sprintf("Host newkey\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n"+
		"Host nokey\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n",
		f.a.port, filepath.Join(f.a.dir, "user"), empty, f.a.port, stranger, filepath.Join(f.a.dir, "known_hosts"))+string(conf))
	f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\n[nopty]\nssh = \"hosta\"\npty = \"/nonexistent/pty\"\n")
	for _, c := range []struct{ host, want string }{
		{"newkey", "host key is not known"},
		{"nokey", "needs a password or a key"},
		{"nopty", "pty is not installed on nopty"},
		{"ssh://127.0.0.1:" + strconv.Itoa(dead), "unreachable"},
	} {
		// list --json carries the error in its JSON, as the original does
		// (TestRemoteListOneHostJSON).
		for _, args := range [][]string{{"list"}, {"peek", "x"}, {"list", "--summary"}} {
			start := time.Now()
			r := f.pty(t, "", append([]string{"--remote", c.host}, args...)...)
			lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
			if r.Code != 1 || len(lines) != 1 || !strings.Contains(r.Stderr, c.want) || r.Stdout != "" {
				t.Errorf("pty --remote %s %q: exit %d, stdout %q, stderr %q; want one line with %q", c.host, args, r.Code, r.Stdout, r.Stderr, c.want)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("pty --remote %s %q took %v", c.host, args, d)
			}
		}
	}
}

// descendants are the processes below pid whose command line contains
// all of words.
func descendants(pid int, words ...string) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		fs := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fs) > 1 {
			pp, _ := strconv.Atoi(fs[1])
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c))
			cl := strings.ReplaceAll(string(b), "\x00", " ")
			all := true
			for _, w := range words {
				all = all && strings.Contains(cl, w)
			}
			if all {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(pid)
	return out
}

// serving are the remote-serve processes that serve root.
func serving(root string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if strings.HasPrefix(filepath.Base(string(cl)), "pty-remote-serve\x00--stdio") && strings.Contains("\x00"+string(env), "\x00PTY_ROOT="+root+"\x00") {
			out = append(out, p)
		}
	}
	return out
}

// An attach in a real terminal (tmux): the history first, typing,
// detach; and after the test kills the ssh process that carries it, a
// reconnect that leaves every line in the terminal exactly once.
func TestRemoteAttachReconnect(t *testing.T) { testAttachReconnect(t, "") }

// The same when the session's scrollback is full, so that its line
// count stays the same while lines scroll, and the outage longer than
// the reattach's slack.
func TestRemoteAttachReconnectFullScrollback(t *testing.T) { testAttachReconnect(t, "150") }

func testAttachReconnect(t *testing.T, scrollback string) {
	f := newFleet(t)
	pres := 30
	if scrollback != "" {
		pres = 300 // the scrollback is full before the attach
	}
	run := testutil.Command(t, f.rootA, "", "run", "-d", "--id", "ctr", "--", "sh", "-c",
		`i=0; while [ $i -lt `+strconv.Itoa(pres)+` ]; do i=$((i+1)); echo pre$i; done; echo ready; read x; echo got-$x; i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo n$i; [ $i = 150 ] && read y; sleep 0.02; done; echo END; sleep 100`)
	if scrollback != "" {
		run.Env = append(run.Env, "PTY_SCROLLBACK="+scrollback)
	}
	if r := testutil.RunCmd(t, run); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	testutil.WaitFor(t, 15*time.Second, "ready", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, "ready")
	})
	tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "attach", "ctr")
	tm.WaitText("ready")
	tm.Keys("go", "Enter")
	tm.WaitText("n40")
	// The session stops at n150 until it is sent a line: an outage
	// then loses nothing the session's scrollback does not keep.
	if scrollback == "" {
		killCarriers(t, f, tm)
	} else {
		longOutage(t, f, "n150")
	}
	tm.WaitText("n150")
	testutil.MustRun(t, f.rootA, "send", "ctr", "--seq", "more", "--seq", "key:return")
	tm.WaitText("END")
	var ns, pre []string
	for _, l := range tm.All() {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "n") && strings.Trim(l[1:], "0123456789") == "" && len(l) > 1 {
			ns = append(ns, l)
		}
		if strings.HasPrefix(l, "pre") {
			pre = append(pre, l)
		}
	}
	check := func(got []string, prefix string, n int) {
		t.Helper()
		ok := len(got) == n
		for i := 0; ok && i < n; i++ {
			ok = got[i] == prefix+strconv.Itoa(i+1)
		}
		if !ok {
			t.Fatalf("the terminal's %s lines (want %s1..%s%d once each, in order): %v\n%s", prefix, prefix, prefix, n, got, strings.Join(tm.All(), "\n"))
		}
	}
	if scrollback == "" {
		check(pre, "pre", pres)
	} else if len(pre) == 0 || pre[len(pre)-1] != "pre"+strconv.Itoa(pres) {
		t.Fatalf("the terminal's pre lines: %v", pre)
	} else {
		// The session keeps only the last of them; those, once each.
		first, _ := strconv.Atoi(strings.TrimPrefix(pre[0], "pre"))
		for i, l := range pre {
			if l != "pre"+strconv.Itoa(first+i) {
				t.Fatalf("the terminal's pre lines: %v", pre)
			}
		}
	}
	check(ns, "n", 300)
	tm.Keys("C-\\")
	tm.WaitText("[detached]")
}

// killCarriers kills the ssh process that carries the attach in tm, and
// once it is back, the host's remote-serve serving it.
func killCarriers(t *testing.T, f *fleet, tm *testutil.Tmux) {
	t.Helper()
	pane, _ := strconv.Atoi(strings.TrimSpace(tm.Run("display-message", "-p", "-t", "u", "#{pane_pid}")))
	ssh := descendants(pane, "ssh", "remote-serve")
	if len(ssh) != 1 {
		t.Fatalf("ssh processes carrying the attach: %v", ssh)
	}
	if err := syscall.Kill(ssh[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "a new ssh process", func() bool {
		n := descendants(pane, "ssh", "remote-serve")
		return len(n) == 1 && n[0] != ssh[0]
	})
	// Then the server side: the host's remote-serve.
	tm.WaitText("n150")
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

// longOutage takes hosta away while more lines scroll than a reattach's
// slack: the shared connection is closed (which drops the attach) and the
// server stopped, then let go once the session has printed until.
func longOutage(t *testing.T, f *fleet, until string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.a.dir, "sshd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("sshd pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	defer syscall.Kill(pid, syscall.SIGCONT)
	exit := masterExit(f.dir, "hosta")
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	testutil.WaitFor(t, 20*time.Second, until+" on the host", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, until)
	})
}

// An outage longer than the session's scrollback: the lines that left it
// meanwhile are gone from the host too, and the terminal gets one marker
// line where they were, the lines before it and after it once each and
// in order.
func TestRemoteAttachReconnectOutageBeyondScrollback(t *testing.T) {
	f := newFleet(t)
	run := testutil.Command(t, f.rootA, "", "run", "-d", "--id", "ctr", "--", "sh", "-c",
		`echo ready; read x; i=0; while [ $i -lt 600 ]; do i=$((i+1)); echo n$i; [ $i = 500 ] && read y; sleep 0.005; done; echo END; sleep 100`)
	run.Env = append(run.Env, "PTY_SCROLLBACK=150")
	if r := testutil.RunCmd(t, run); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	testutil.WaitFor(t, 15*time.Second, "ready", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, "ready")
	})
	tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "attach", "ctr")
	tm.WaitText("ready")
	tm.Keys("go", "Enter")
	tm.WaitText("n40")
	// The session stops at n500 until it is sent a line, far more than
	// its 150 lines after the terminal's last.
	longOutage(t, f, "n500")
	tm.WaitText("n500")
	testutil.MustRun(t, f.rootA, "send", "ctr", "--seq", "more", "--seq", "key:return")
	tm.WaitText("END")
	var before, after []int
	marks := 0
	for _, l := range tm.All() {
		l = strings.TrimSpace(l)
		if l == client.LostMarker {
			marks++
		}
		if k, err := strconv.Atoi(strings.TrimPrefix(l, "n")); err == nil && strings.HasPrefix(l, "n") {
			if marks == 0 {
				before = append(before, k)
			} else {
				after = append(after, k)
			}
		}
	}
	run1 := func(ns []int, from, to int) bool {
		if len(ns) == 0 || (from > 0 && ns[0] != from) || (to > 0 && ns[len(ns)-1] != to) {
			return false
		}
		for i := range ns {
			if ns[i] != ns[0]+i {
				return false
			}
		}
		return true
	}
	if marks != 1 || !run1(before, 1, 0) || !run1(after, 0, 600) || after[0] <= before[len(before)-1]+1 {
		t.Fatalf("%d marker lines; before them %v, after them %v\n%s", marks, before, after, strings.Join(tm.All(), "\n"))
	}
	tm.Keys("C-\\")
	tm.WaitText("[detached]")
}

// peek -f --remote follows, goes on after the ssh process carrying it is
// killed, and stops on Ctrl+\. An attach whose session's daemon dies
// (no EXIT) tries again, and the host's refusal ends it with the reason.
func TestRemoteFollowAndRefusedReconnect(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "fol", "--", "sh", "-c", `echo first; while read x; do echo saw-$x; done`)
	testutil.WaitFor(t, 15*time.Second, "first", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "fol").Stdout, "first")
	})
	tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, filepath.Join(testutil.BinDir(t), "pty"), "peek", "-f", "--remote", "hosta", "fol")
	tm.WaitText("first")
	testutil.MustRun(t, f.rootA, "send", "fol", "--seq", "one", "--seq", "key:return")
	tm.WaitText("saw-one")
	killRoute(t, tm, "the follow")
	testutil.MustRun(t, f.rootA, "send", "fol", "--seq", "two", "--seq", "key:return")
	tm.WaitText("saw-two")
	tm.Keys("C-\\")
	tm.WaitText("[detached]")

	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "doomed", "--", "sh", "-c", `echo alive; sleep 100`)
	testutil.WaitFor(t, 15*time.Second, "alive", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "doomed").Stdout, "alive")
	})
	at := testutil.StartUserTmuxCmd(t, 12, 60, f.env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "attach", "doomed")
	at.WaitText("alive")
	b, err := os.ReadFile(filepath.Join(f.rootA, "doomed.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("doomed's daemon pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGKILL) // no EXIT: the attach cannot tell this from a network drop
	at.WaitText(`session "doomed" not found`)
	scr := strings.ReplaceAll(at.Screen(), "\n", "") // the pane wraps the long line
	if !strings.Contains(scr, "[reconnecting to hosta") || !strings.Contains(scr, "restart it with: pty --remote hosta restart doomed") {
		t.Fatalf("the attach's end:\n%s", scr)
	}
}

// send --remote encodes keys for the remote program's modes (the STATUS
// asked over the route) and wraps a paste.
func TestRemoteSendKeysFollowModes(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "keys", "--", "sh", "-c", `printf 'ready\033[?1h'; stty raw -echo; exec cat -v`)
	testutil.WaitFor(t, 15*time.Second, "ready", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "keys").Stdout, "ready")
	})
	f.mustPty(t, "--remote", "hosta", "send", "keys", "--with-delay", "0", "--seq", "key:up", "--seq", "-x-")
	f.mustPty(t, "--remote", "hosta", "send", "keys", "--paste", "--seq", "pasted")
	testutil.WaitFor(t, 15*time.Second, "the keys as the program got them", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "keys").Stdout, "^[OA-x-^[[200~pasted^[[201~")
	})
}

// A remotes.toml host with fabric = "peer" is reached through the socket
// "fabric dial peer pty-remote" prints, as in the original. fabric is not
// installed here: PTY_FABRIC_BIN is a script that checks its arguments
// and prints the socket of a real remote-serve --socket.
func TestRemoteFabricPeer(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "fab", "--", "sh", "-c", "echo over-fabric; read x; echo fab-$x; sleep 100")
	testutil.WaitFor(t, 15*time.Second, "over-fabric", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "fab").Stdout, "over-fabric")
	})
	sock := filepath.Join(f.dir, "fab.sock")
	serveSocket(t, f.rootA, sock)
	dialSocket(t, sock).Close()
	script := filepath.Join(f.dir, "fabric")
	f.write(t, "fabric", "#!/bin/sh\n[ \"$1 $2 $3\" = \"dial laptop pty-remote\" ] || { echo \"bad args: $*\" >&2; exit 2; }\necho "+sock+"\n")
	os.Chmod(script, 0o755)
	f.write(t, "pty/remotes.toml", "[lap]\nfabric = \"laptop\"\n")
	f.env = append(f.env, "PTY_FABRIC_BIN="+script)
	if r := f.mustPty(t, "list", "--remote", "--json"); !strings.Contains(r.Stdout, `{"label":"lap","sessions":[{"name":"fab"`) {
		t.Fatalf("fleet over fabric: %s", r.Stdout)
	}
	if r := f.mustPty(t, "--remote", "lap", "peek", "--plain", "fab"); r.Stdout != "over-fabric\n" {
		t.Fatalf("peek over fabric: %q", r.Stdout)
	}
	f.mustPty(t, "--remote", "lap", "send", "fab", "--seq", "ok", "--seq", "key:return")
	testutil.WaitFor(t, 15*time.Second, "fab-ok", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "fab").Stdout, "fab-ok")
	})
	if r := f.pty(t, "", "--remote", "lap", "kill", "fab"); r.Code != 1 || !strings.Contains(r.Stderr, "fabric peer") {
		t.Fatalf("a command that does not go over fabric: %+v", r)
	}
}

// While a host cannot be reached the attach keeps trying, until Ctrl+\
// stops it, or PTY_RECONNECT_MAX_ATTEMPTS runs out.
func TestRemoteReconnectStops(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "gone", "--", "sh", "-c", "echo still-here; sleep 100")
	testutil.WaitFor(t, 15*time.Second, "still-here", func() bool {
		return strings.Contains(testutil.Run(t, f.rootB, "peek", "--plain", "gone").Stdout, "still-here")
	})
	pty := filepath.Join(testutil.BinDir(t), "pty")
	stop := testutil.StartUserTmuxCmd(t, 12, 60, f.env, pty, "--remote", "hostb", "attach", "gone")
	stop.WaitText("still-here")
	limited := testutil.StartUserTmuxCmd(t, 12, 60, append(f.env, "PTY_RECONNECT_MAX_ATTEMPTS=2"), pty, "--remote", "hostb", "attach", "gone")
	limited.WaitText("still-here")
	// The host goes away: its listener, then the shared connection.
	b, err := os.ReadFile(filepath.Join(f.b.dir, "sshd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("sshd pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	exit := masterExit(f.dir, "hostb")
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	stop.WaitText("[reconnecting to hostb... Ctrl+\\ to stop]")
	stop.Keys("C-\\")
	stop.WaitText("[stopped reconnecting]")
	limited.WaitText("[gave up reconnecting]")
}

// A command that attaches or prompts gets a terminal on the host when
// this side has one: pty run (attached) through --remote, typed into and
// detached from as here.
func TestRemoteRunAttachedGetsATerminal(t *testing.T) {
	f := newFleet(t)
	tm := testutil.StartUserTmuxCmd(t, 12, 60, f.env, "sh", "-c", `"$0" --remote hosta run --id tt -- sh -c 'echo in-tty; read x; echo got-$x; sleep 100'; echo "ended=$?"`, filepath.Join(testutil.BinDir(t), "pty"))
	tm.WaitText("in-tty")
	tm.Keys("hi", "Enter")
	tm.WaitText("got-hi")
	tm.Keys("C-\\")
	tm.WaitText("[detached]")
	// Nothing of ssh's own after the detach ("Shared connection to ...
	// closed."): the user's terminal shows pty's words only.
	if screen := tm.WaitText("ended=0"); strings.Contains(screen, "onnection to") {
		t.Errorf("ssh's notice reached the terminal:\n%s", screen)
	}
	if r := testutil.MustRun(t, f.rootA, "list", "--json"); !strings.Contains(r.Stdout, `"tt"`) || !strings.Contains(r.Stdout, `"running"`) {
		t.Fatalf("the session on the host after the detach: %s", r.Stdout)
	}
}
