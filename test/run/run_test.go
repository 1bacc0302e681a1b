package run

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/relaunchtest"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// runEnv runs "pty args" with extra environment.
func runEnv(t *testing.T, root string, env []string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(cmd.Env, env...)
	return testutil.RunCmd(t, cmd)
}

func peekPlain(t *testing.T, root, id string) string {
	t.Helper()
	return testutil.Run(t, root, "peek", "--plain", id).Stdout
}

func waitScreen(t *testing.T, root, id, want string) string {
	t.Helper()
	var out string
	testutil.WaitFor(t, 10*time.Second, "screen of "+id+" to show "+want, func() bool {
		out = peekPlain(t, root, id)
		return strings.Contains(out, want)
	})
	return out
}

// waitDaemonGone waits until the session's daemon process has exited.
func waitDaemonGone(t *testing.T, pid int) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "daemon "+strconv.Itoa(pid)+" to exit", func() bool { return !proc.Alive(pid) })
}

func daemonPid(t *testing.T, root, id string) int {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatalf("metadata of %s: %v", id, err)
	}
	if m.DaemonPid == 0 {
		t.Fatalf("metadata of %s has no daemonPid", id)
	}
	return m.DaemonPid
}

func TestRunDetachedThenPeek(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.MustRun(t, root, "run", "-d", "--id", "hello", "--", "sh", "-c", "echo hello from pty; sleep 30")
	if r.Stdout != "Session \"hello\" created.\n" {
		t.Fatalf("stdout = %q", r.Stdout)
	}
	waitScreen(t, root, "hello", "hello from pty")
	m, err := layout.At(root).Metadata("hello")
	if err != nil {
		t.Fatal(err)
	}
	if m.Command != "/bin/sh" && m.Command != "/usr/bin/sh" {
		t.Errorf("command = %q, want the resolved path of sh", m.Command)
	}
	if m.DisplayCommand != "sh -c echo hello from pty; sleep 30" || len(m.Generation) != 32 || m.Rows != 24 || m.Cols != 80 {
		t.Errorf("metadata = %+v", m)
	}
	fi, err := os.Stat(layout.At(root).Paths("hello").Sock())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode: %v %v", fi.Mode(), err)
	}
	evs, _ := layout.At(root).Events("hello")
	if len(evs) == 0 || evs[0].Type != layout.EventSessionStart {
		t.Errorf("events = %+v, want session_start first", evs)
	}
	// Its arguments are its identity: session, generation and root.
	comm, _ := os.ReadFile("/proc/" + strconv.Itoa(m.DaemonPid) + "/cmdline")
	if want := strings.Join(registry.DaemonArgs(root, "hello", m.Generation), "\x00") + "\x00"; string(comm) != want {
		t.Errorf("daemon cmdline = %q, want %q", comm, want)
	}
}

func TestRunBadInputLeavesNothing(t *testing.T) {
	root := testutil.Root(t)
	file := filepath.Join(root, "afile")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"not found", []string{"run", "-d", "--", "no-such-command-xyz"}, "Command not found: no-such-command-xyz"},
		{"cwd missing", []string{"run", "-d", "--cwd", "/nonexistent/dir", "--", "true"}, "Working directory does not exist"},
		{"cwd file", []string{"run", "-d", "--cwd", "/etc/passwd", "--", "true"}, "is not a directory"},
		{"not executable", []string{"run", "-d", "--", "/etc/passwd"}, "Command is not executable: /etc/passwd"},
		{"directory", []string{"run", "-d", "--", "/etc"}, "Command is a directory: /etc"},
		{"bad id", []string{"run", "-d", "--id", "a/b", "--", "true"}, "session id"},
		{"bad tag", []string{"run", "-d", "--tag", "novalue", "--", "true"}, "--tag"},
		{"bad env", []string{"run", "-d", "--env", "NOVALUE", "--", "true"}, "--env"},
		{"empty unset", []string{"run", "-d", "--unset-env", "", "--", "true"}, "--unset-env"},
		{"unset with =", []string{"run", "-d", "--unset-env", "A=B", "--", "true"}, "--unset-env"},
		{"no command", []string{"run", "-d"}, "no command"},
		// Ids and display names (issue: ../x, a/b, empty, 300 bytes,
		// newline, a control character; NUL cannot reach argv).
		{"id ../x", []string{"run", "-d", "--id", "../x", "--", "true"}, "session id"},
		{"id ..", []string{"run", "-d", "--id", "..", "--", "true"}, "session id"},
		{"id empty", []string{"run", "-d", "--id", "", "--", "true"}, "session id"},
		{"id 300 bytes", []string{"run", "-d", "--id", strings.Repeat("x", 300), "--", "true"}, "session id"},
		{"id socket too long", []string{"run", "-d", "--id", strings.Repeat("x", 100), "--", "true"}, "104"},
		{"id newline", []string{"run", "-d", "--id", "a\nb", "--", "true"}, "session id"},
		{"id control", []string{"run", "-d", "--id", "a\x1bb", "--", "true"}, "session id"},
		{"name empty", []string{"run", "-d", "--name", "", "--", "true"}, "display name"},
		{"name newline", []string{"run", "-d", "--name", "a\nb", "--", "true"}, "display name"},
		{"name control", []string{"run", "-d", "--name", "a\x07b", "--", "true"}, "display name"},
		{"name untrimmed", []string{"run", "-d", "--name", " web", "--", "true"}, "display name"},
		{"name too long", []string{"run", "-d", "--name", strings.Repeat("é", 161), "--", "true"}, "display name"},
		{"name bidi override", []string{"run", "-d", "--name", "exe.\u202etxt", "--", "true"}, "U+202E"},
		{"name zero-width", []string{"run", "-d", "--name", "w\u200beb", "--", "true"}, "U+200B"},
		{"name bom", []string{"run", "-d", "--name", "\ufeffweb", "--", "true"}, "U+FEFF"},
		{"tag value isolate", []string{"run", "-d", "--tag", "k=a\u2066b", "--", "true"}, "U+2066"},
		{"tag key zero-width", []string{"run", "-d", "--tag", "k\u200d=v", "--", "true"}, "U+200D"},
	}
	_ = file
	for _, c := range cases {
		r := testutil.Run(t, root, c.args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("%s: code %d stderr %q, want exit 1 and one line containing %q", c.name, r.Code, r.Stderr, c.want)
		}
		if f := testutil.DirNames(t, root); len(f) != 0 {
			t.Fatalf("%s: root not empty afterwards: %v", c.name, f)
		}
	}

	// An id that is running, and one whose dead record is kept.
	testutil.MustRun(t, root, "run", "-d", "--id", "busy", "--", "sleep", "30")
	// run -d returns before the daemon takes over (and removes) its
	// launch claim.
	testutil.WaitFor(t, 10*time.Second, "busy's daemon to take over its launch claim", func() bool {
		_, err := os.Lstat(layout.At(root).Paths("busy").Launch())
		return errors.Is(err, os.ErrNotExist)
	})
	before := testutil.DirNames(t, root)
	r := testutil.Run(t, root, "run", "-d", "--id", "busy", "--", "true")
	if r.Code != 1 || r.Stderr != "Session \"busy\" is already running. Use \"pty attach busy\" to connect.\n" {
		t.Errorf("running id: code %d stderr %q", r.Code, r.Stderr)
	}
	keep := []string{"PTY_REAP_ON_EXIT=false"}
	runEnv(t, root, keep, "run", "-d", "--id", "dead", "--", "true")
	pid := daemonPid(t, root, "dead")
	waitDaemonGone(t, pid)
	r = testutil.Run(t, root, "run", "-d", "--id", "dead", "--", "true")
	if r.Code != 1 || r.Stderr != "Session id \"dead\" is already in use.\n" {
		t.Errorf("dead id: code %d stderr %q", r.Code, r.Stderr)
	}
	after := testutil.DirNames(t, root)
	if len(after) != len(before)+2 { // dead.json, dead.events.jsonl
		t.Errorf("files before %v, after %v", before, after)
	}
}

func TestEnvPolicy(t *testing.T) {
	root := testutil.Root(t)
	script := `echo "FOO=$FOO X=$X GONE=${GONE-unset} S=$PTY_SESSION T=$TERM G=${#PTY_SESSION_GENERATION}"; sleep 30`
	r := runEnv(t, root, []string{"GONE=here", "TERM="}, "run", "-d", "--id", "envs",
		"--env", "FOO=bar", "--env", "X=1", "--unset-env", "X", "--unset-env", "GONE", "--", "sh", "-c", script)
	if r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	out := waitScreen(t, root, "envs", "FOO=")
	want := "FOO=bar X=1 GONE=unset S=envs T=xterm-256color G=32"
	if !strings.Contains(out, want) {
		t.Fatalf("screen %q does not contain %q", out, want)
	}
	m, _ := layout.At(root).Metadata("envs")
	if m.ExtraEnv["FOO"] != "bar" || len(m.UnsetEnv) != 2 {
		t.Errorf("env policy not persisted: %+v %+v", m.ExtraEnv, m.UnsetEnv)
	}
}

func TestExitCodeLastLinesAndSignal(t *testing.T) {
	root := testutil.Root(t)
	keep := []string{"PTY_REAP_ON_EXIT=false"}
	runEnv(t, root, keep, "run", "-d", "--id", "seven", "--", "sh", "-c", "echo one; echo two; exit 7")
	runEnv(t, root, keep, "run", "-d", "--id", "killed", "--", "sh", "-c", "echo bye; kill -9 $$")
	for _, id := range []string{"seven", "killed"} {
		waitDaemonGone(t, daemonPid(t, root, id))
	}
	m, _ := layout.At(root).Metadata("seven")
	if m.ExitCode == nil || *m.ExitCode != 7 || m.Signal != nil || m.ExitedAt == "" {
		t.Errorf("seven: %+v", m)
	}
	if strings.Join(m.LastLines, "|") != "one|two" {
		t.Errorf("lastLines = %q", m.LastLines)
	}
	m, _ = layout.At(root).Metadata("killed")
	if m.ExitCode == nil || *m.ExitCode != 137 || m.Signal == nil || *m.Signal != 9 {
		t.Errorf("killed: exit %v signal %v", m.ExitCode, m.Signal)
	}
	evs, _ := layout.At(root).Events("killed")
	last := evs[len(evs)-1]
	if last.Type != layout.EventSessionExit || last.Fields["exitCode"] != float64(137) || last.Fields["signal"] != float64(9) {
		t.Errorf("last event = %+v", last)
	}
	for _, id := range []string{"seven", "killed"} {
		p := layout.At(root).Paths(id)
		if _, err := os.Stat(p.Sock()); err == nil {
			t.Errorf("%s: socket left behind", id)
		}
		if _, err := os.Stat(p.Pid()); err == nil {
			t.Errorf("%s: pid file left behind", id)
		}
	}
	// A dead session's peek prints its last lines.
	if out := testutil.MustRun(t, root, "peek", "seven").Stdout; out != "one\ntwo\n" {
		t.Errorf("peek of dead session = %q", out)
	}
}

func TestReapPolicy(t *testing.T) {
	root := testutil.Root(t)
	cases := []struct {
		id   string
		env  []string
		args []string
		code int
		kept bool
	}{
		{"default", nil, nil, 0, false},
		{"envfalse", []string{"PTY_REAP_ON_EXIT=false"}, nil, 0, true},
		{"envzero", []string{"PTY_REAP_ON_EXIT=0"}, nil, 3, true},
		{"envother", []string{"PTY_REAP_ON_EXIT=yes"}, nil, 0, false},
		{"keep", nil, []string{"--tag", "keep=1"}, 0, true},
		{"keepfalse", nil, []string{"--tag", "keep=false"}, 0, false},
		{"ephemeral", []string{"PTY_REAP_ON_EXIT=false"}, []string{"-e"}, 0, false},
		{"ephkeep", nil, []string{"-e", "--tag", "keep=yes"}, 0, true},
		{"cleanok", []string{"PTY_REAP_ON_EXIT=false"}, []string{"--cleanup-on-clean-exit"}, 0, false},
		{"cleanfail", nil, []string{"--cleanup-on-clean-exit"}, 2, true},
		{"permanent", nil, []string{"--permanent"}, 0, true},
		{"permtag", nil, []string{"--tag", "strategy=permanent"}, 1, true},
		// A failure is kept unless reaping was asked for.
		{"defaultfail", nil, nil, 3, true},
		{"envtruefail", []string{"PTY_REAP_ON_EXIT=true"}, nil, 3, false},
		{"envfalsefail", []string{"PTY_REAP_ON_EXIT=false"}, nil, 3, true},
		{"keepfalsefail", nil, []string{"--tag", "keep=false"}, 3, false},
		{"ephfail", nil, []string{"-e"}, 3, false},
	}
	var pids []int
	for _, c := range cases {
		args := append([]string{"run", "-d", "--id", c.id}, c.args...)
		args = append(args, "--", "sh", "-c", "read x; exit "+strconv.Itoa(c.code))
		if r := runEnv(t, root, c.env, args...); r.Code != 0 {
			t.Fatalf("%s: %+v", c.id, r)
		}
		pids = append(pids, daemonPid(t, root, c.id))
	}
	// keep set while running, the way pty tag does it.
	runEnv(t, root, nil, "run", "-d", "--id", "latekeep", "--", "sh", "-c", "read x")
	if _, err := layout.At(root).Update("latekeep", func(m *layout.Metadata) ([]layout.Event, error) {
		m.Tags = map[string]string{"keep": "true"}
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	pids = append(pids, daemonPid(t, root, "latekeep"))
	cases = append(cases, struct {
		id   string
		env  []string
		args []string
		code int
		kept bool
	}{"latekeep", nil, nil, 0, true})
	for _, c := range cases {
		if err := client.Send(root, c.id, []byte("\r")); err != nil {
			t.Fatalf("send to %s: %v", c.id, err)
		}
	}
	for _, p := range pids {
		waitDaemonGone(t, p)
	}
	for _, c := range cases {
		m, err := layout.At(root).Metadata(c.id)
		if c.kept != (err == nil) {
			t.Errorf("%s: kept = %v, want %v", c.id, err == nil, c.kept)
			continue
		}
		if c.kept && (m.ExitCode == nil || *m.ExitCode != c.code) {
			t.Errorf("%s: exit code %v, want %d", c.id, m.ExitCode, c.code)
		}
		if !c.kept {
			if f, _ := filepath.Glob(filepath.Join(root, c.id+".*")); len(f) != 0 {
				t.Errorf("%s: files left: %v", c.id, f)
			}
		}
	}
}

func TestKillStopsTreeIncludingSetsidGrandchild(t *testing.T) {
	root := testutil.Root(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "gc.pid")
	// The grandchild escapes the child's session and process group, and
	// its parent exits: only the subreaper keeps it in our tree.
	script := `(setsid sleep 301 & echo $! > ` + pidFile + `); echo started; sleep 300`
	testutil.MustRun(t, root, "run", "-d", "--id", "tree", "--", "sh", "-c", script)
	waitScreen(t, root, "tree", "started")
	var gc int
	testutil.WaitFor(t, 5*time.Second, "grandchild pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		gc, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return gc > 0
	})
	dpid := daemonPid(t, root, "tree")
	if pp := ppid(gc); pp != dpid {
		t.Fatalf("grandchild's parent is %d, want the daemon %d (subreaper)", pp, dpid)
	}
	syscall.Kill(dpid, syscall.SIGTERM)
	waitDaemonGone(t, dpid)
	if proc.Alive(gc) {
		t.Errorf("setsid grandchild %d survived the daemon's SIGTERM", gc)
	}
	m, err := layout.At(root).Metadata("tree")
	if err != nil {
		t.Fatalf("a killed session keeps its record: %v", err)
	}
	// The stop hangs the session up first, and sh dies of the SIGHUP.
	if m.ExitCode == nil || *m.ExitCode != 129 || m.Signal == nil || *m.Signal != 1 {
		t.Errorf("exit %v signal %v, want 129/1", m.ExitCode, m.Signal)
	}
	p := layout.At(root).Paths("tree")
	for _, f := range []string{p.Sock(), p.Pid()} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s left behind", f)
		}
	}
}

func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, _ := strconv.Atoi(f[1])
	return n
}

func TestNoZombiesAccumulate(t *testing.T) {
	root := testutil.Root(t)
	script := `for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do (sleep 0.01 &); done; echo spawned; sleep 300`
	testutil.MustRun(t, root, "run", "-d", "--id", "zomb", "--", "sh", "-c", script)
	waitScreen(t, root, "zomb", "spawned")
	dpid := daemonPid(t, root, "zomb")
	testutil.WaitFor(t, 5*time.Second, "orphans to be reaped", func() bool {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || ppid(pid) != dpid {
				continue
			}
			b, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			s := string(b)
			if i := strings.LastIndexByte(s, ')'); i > 0 && s[i+2] == 'Z' {
				return false
			}
		}
		return true
	})
}

func TestConcurrentRunSameID(t *testing.T) {
	root := testutil.Root(t)
	var wg sync.WaitGroup
	results := make([]testutil.Result, 5)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = testutil.Run(t, root, "run", "-d", "--id", "race", "--", "sleep", "30")
		}()
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		switch {
		case r.Code == 0:
			ok++
		case !strings.Contains(r.Stderr, "already running") && !strings.Contains(r.Stderr, "in use"):
			t.Errorf("loser's error: %q", r.Stderr)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of 5 concurrent runs succeeded, want exactly 1: %+v", ok, results)
	}
	// Losers' daemons exit right after reporting; only one may remain.
	testutil.WaitFor(t, 5*time.Second, "exactly one daemon for id race", func() bool {
		n := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if strings.HasPrefix(string(b), "pty-daemon\x00race\x00") && strings.HasSuffix(string(b), "\x00"+root+"\x00") {
				n++
			}
		}
		return n == 1
	})
}

func TestRunAReusesDeadRecord(t *testing.T) {
	root := testutil.Root(t)
	keep := []string{"PTY_REAP_ON_EXIT=false"}
	dir := t.TempDir()
	runEnv(t, root, keep, "run", "-d", "--id", "again", "--cwd", dir, "--tag", "team=x", "--env", "FOO=1", "--name", "label", "--", "true")
	waitDaemonGone(t, daemonPid(t, root, "again"))
	r := runEnv(t, root, keep, "run", "-a", "-d", "--id", "again", "--", "sh", "-c", `echo "cwd=$(pwd) foo=$FOO"; sleep 30`)
	if r.Code != 0 {
		t.Fatalf("run -a: %+v", r)
	}
	waitScreen(t, root, "again", "cwd="+dir+" foo=1")
	m, _ := layout.At(root).Metadata("again")
	if m.Tags["team"] != "x" || m.DisplayName == nil || *m.DisplayName != "label" || m.Exited() {
		t.Errorf("metadata after run -a: %+v", m)
	}
}

func TestNestedRunsInPlace(t *testing.T) {
	root := testutil.Root(t)
	r := runEnv(t, root, []string{"PTY_SESSION=outer"}, "run", "--env", "FOO=inner", "--", "sh", "-c", `echo "foo=$FOO"; exit 4`)
	if r.Code != 4 || !strings.Contains(r.Stderr, `Already inside pty session "outer", running directly.`) || r.Stdout != "foo=inner\n" {
		t.Fatalf("nested run: %+v", r)
	}
	if f := testutil.DirNames(t, root); len(f) != 0 {
		t.Errorf("nested run created files: %v", f)
	}
}

func TestStatusJSON(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "st", "--rows", "30", "--cols", "100", "--", "sleep", "30")
	raw, err := client.Status(root, "st", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s, err := proto.ParseStatus(raw)
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if s.Terminal.Rows != 30 || s.Terminal.Cols != 100 || !s.Process.Alive || s.Process.Resources == nil || s.Process.Resources.RssKb <= 0 || s.Daemon.Pid != daemonPid(t, root, "st") || s.Clients.Total != 1 {
		t.Errorf("status = %s", raw)
	}
}

// TestRunRejectsBadSizes: a size out of range is refused up front with one
// line saying what is allowed, and nothing is created.
func TestRunRejectsBadSizes(t *testing.T) {
	root := testutil.Root(t)
	for _, args := range [][]string{
		{"--rows", "65535", "--cols", "65535"},
		{"--rows", "0"},
		{"--cols", "0"},
		{"--rows", "-3"},
		{"--cols", "1001"},
		{"--rows", "70000"},
	} {
		r := testutil.Run(t, root, append(append([]string{"run", "-d", "--id", "sz"}, args...), "--", "sleep", "30")...)
		lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
		if r.Code != 1 || len(lines) != 1 || !strings.Contains(r.Stderr, "from 1 to 1000") {
			t.Errorf("run %v: exit %d, stderr %q; want exit 1 and one line giving the range", args, r.Code, r.Stderr)
		}
		if f := testutil.DirNames(t, root); len(f) != 0 {
			t.Errorf("run %v left %v", args, f)
		}
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "max", "--rows", "1000", "--cols", "1000", "--", "sleep", "30")
	if m, err := layout.At(root).Metadata("max"); err != nil || m.Rows != 1000 || m.Cols != 1000 {
		t.Errorf("1000x1000: %+v %v", m, err)
	}
}

// TestRunAIsARelaunch: run -a on an ended session starts it again the way
// pty restart does: gc's flapping flag and counters cleared, strategy
// kept, the agent's variables scrubbed.
func TestRunAIsARelaunch(t *testing.T) {
	root := testutil.Root(t)
	e := relaunchtest.Start(t, root, "flap", true)
	r := runEnv(t, root, []string{relaunchtest.AgentEnv}, append([]string{"run", "-a", "-d", "--id", "flap", "--"}, e.Command...)...)
	if r.Code != 0 || r.Stdout != "Session \"flap\" created.\n" {
		t.Fatalf("run -a: %+v", r)
	}
	e.CheckRelaunched(t, root, false)
}

// The session's program starts with its terminal on 0, 1 and 2 and no
// other descriptor: not the daemon's launch pipes, nor whatever the shell
// that ran pty left open (as tmux closes them for its panes).
func TestChildGetsOnlyItsTerminal(t *testing.T) {
	root := testutil.Root(t)
	stray, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer stray.Close()
	cmd := testutil.Command(t, root, "", "run", "-d", "--id", "fds", "--",
		"sh", "-c", "ls /proc/self/fd | tr '\\n' ' '; echo end; exec sleep 60")
	// Left open by the caller across exec, on fd 8.
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, nil, stray}
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("%+v", r)
	}
	out := waitScreen(t, root, "fds", "end")
	// ls lists its own directory descriptor too: 0 1 2 and one more.
	if got := strings.Fields(strings.SplitN(out, "end", 2)[0]); len(got) != 4 {
		t.Errorf("the program's descriptors are %v, want 0 1 2 and ls's own", got)
	}
}

// TestFailedCommandLeavesATrace: a command that fails (a non-zero exit, or
// a signal nobody asked for) keeps its record by default, so list, peek
// and events say why it died; a clean exit is reaped at once, and a stop
// on request (pty kill) is marked as such.
func TestFailedCommandLeavesATrace(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.MustRun(t, root, "run", "-d", "--", "false")
	id, ok := strings.CutPrefix(strings.TrimSpace(r.Stdout), "Session \"")
	id, ok2 := strings.CutSuffix(id, "\" created.")
	if !ok || !ok2 {
		t.Fatalf("run -d output %q", r.Stdout)
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "boom", "--", "sh", "-c", "echo boom; exit 3")
	testutil.MustRun(t, root, "run", "-d", "--id", "crash", "--", "sh", "-c", "echo bye; kill -9 $$")
	testutil.MustRun(t, root, "run", "-d", "--id", "clean", "--", "sh", "-c", "echo fine")
	testutil.MustRun(t, root, "run", "-d", "--id", "stopped", "--", "sh", "-c", "echo up; sleep 300")
	waitScreen(t, root, "stopped", "up")
	testutil.MustRun(t, root, "kill", "stopped")
	for _, id := range []string{id, "boom", "crash", "clean"} {
		testutil.WaitFor(t, 10*time.Second, id+" to end and its daemon to exit", func() bool {
			s, err := layout.At(root).Load(id)
			return errors.Is(err, layout.ErrNotFound) || err == nil && s.Status == layout.Exited && !proc.Alive(s.Meta.DaemonPid)
		})
	}

	var list []struct {
		Name     string `json:"name"`
		Status   string `json:"status"`
		ExitCode *int   `json:"exitCode"`
	}
	if err := json.Unmarshal([]byte(testutil.MustRun(t, root, "list", "--json").Stdout), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range list {
		code := "none"
		if s.ExitCode != nil {
			code = strconv.Itoa(*s.ExitCode)
		}
		got[s.Name] = s.Status + " " + code
	}
	want := map[string]string{id: "exited 1", "boom": "exited 3", "crash": "exited 137", "stopped": "exited 129"}
	if !maps.Equal(got, want) {
		t.Errorf("list = %v, want %v (the clean exit reaped, the failures kept)", got, want)
	}
	if out := testutil.MustRun(t, root, "peek", "boom").Stdout; !strings.Contains(out, "boom") {
		t.Errorf("peek boom = %q", out)
	}
	if r := testutil.Run(t, root, "peek", id); r.Code != 0 {
		t.Errorf("peek of the failed false: %+v", r)
	}
	for sid, code := range map[string]float64{id: 1, "boom": 3} {
		out := testutil.MustRun(t, root, "events", "--recent", "--json", sid).Stdout
		var last map[string]any
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["type"] != layout.EventSessionExit || last["exitCode"] != code {
			t.Errorf("events of %s end with %v (%v), want session_exit %v", sid, last, err, code)
		}
	}
	for sid, killed := range map[string]bool{"crash": false, "stopped": true, "boom": false} {
		if m, err := layout.At(root).Metadata(sid); err != nil || m.Killed != killed || m.Failed() == killed {
			t.Errorf("%s: killed %v failed %v (%v), want killed %v", sid, m.Killed, m.Failed(), err, killed)
		}
	}
}
