package up

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/ptyfile/manage"
)

// project writes a pty.toml into a fresh directory and returns the directory.
func project(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pty.toml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// in runs "pty args..." with dir as the working directory.
func in(t *testing.T, root, dir string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Dir = dir
	return testutil.RunCmd(t, cmd)
}

func mustIn(t *testing.T, root, dir string, args ...string) testutil.Result {
	t.Helper()
	r := in(t, root, dir, args...)
	if r.Code != 0 {
		t.Fatalf("pty %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// byKey finds the session a pty.toml key started.
func byKey(t *testing.T, root, key string) (layout.Session, bool) {
	t.Helper()
	all, err := layout.At(root).List()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if s.Meta.Tags[layout.TagPtyfileSession] == key {
			return s, true
		}
	}
	return layout.Session{}, false
}

const twoSessions = `prefix = "demo"

[sessions.web]
command = "echo web-$PORT > out.txt; sleep 300"
tags = { strategy = "permanent", tier = "front" }
env = { PORT = "3000" }

[sessions.db]
command = "sleep 300"
cwd = "data"
id = "demo-db"
`

func TestUpStartsSyncsAndDownStops(t *testing.T) {
	root := testutil.Root(t)
	dir := project(t, twoSessions)
	os.Mkdir(filepath.Join(dir, "data"), 0o755)

	r := mustIn(t, root, dir, "up")
	want := "● demo-web (started)\n● demo-db (started)\nStarted 2 sessions.\n"
	if r.Stdout != want {
		t.Fatalf("up output:\n%s\nwant:\n%s", r.Stdout, want)
	}
	web, ok := byKey(t, root, "web")
	if !ok || web.Status != layout.Running {
		t.Fatalf("web not running: %+v", web)
	}
	abs := filepath.Join(dir, "pty.toml")
	m := web.Meta
	if m.Tags[layout.TagPtyfile] != abs || m.Tags["strategy"] != "permanent" || m.Tags["tier"] != "front" ||
		m.Tags[layout.TagPtyfileTags] != "strategy,tier" || m.Cwd != dir || m.DisplayCommand != "echo web-$PORT > out.txt; sleep 300" ||
		m.ExtraEnv["PORT"] != "3000" || m.Name(web.ID) != "demo-web" {
		t.Fatalf("web metadata: %+v tags %v", m, m.Tags)
	}
	// The command ran through /bin/sh -c, in the file's directory, with
	// the file's env.
	testutil.WaitFor(t, 10*time.Second, "web's output", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "out.txt"))
		return string(b) == "web-3000\n"
	})
	db, ok := byKey(t, root, "db")
	if !ok || db.ID != "demo-db" || db.Meta.Cwd != filepath.Join(dir, "data") {
		t.Fatalf("db: %+v", db)
	}

	// Edit the tags: up keeps the session and follows the file, leaving
	// a hand-added tag alone.
	if _, _, err := layout.At(root).SetTags(web.ID, map[string]string{"mine": "yes", "strategy.status": "flapping"}, nil); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "pty.toml"), []byte(strings.Replace(twoSessions, `tier = "front"`, `role = "api"`, 1)), 0o644)
	r = mustIn(t, root, dir, "up")
	want = "● demo-web (already running, updated tags: +role=api -tier)\n● demo-db (already running)\nAll sessions already running.\n"
	if r.Stdout != want {
		t.Fatalf("second up:\n%s\nwant:\n%s", r.Stdout, want)
	}
	if v, ok := mustTags(t, root, web.ID)["strategy.status"]; ok {
		t.Errorf("up left gc's strategy.status=%s", v)
	}

	// gc's bookkeeping is cleared by every up, but it is not the file's:
	// an unchanged file reports nothing.
	bookkeeping := map[string]string{layout.TagCommandHash: "abc", layout.TagConsecutiveFails: "2", layout.TagLastRespawnAt: "1"}
	if _, _, err := layout.At(root).SetTags(web.ID, bookkeeping, nil); err != nil {
		t.Fatal(err)
	}
	r = mustIn(t, root, dir, "up")
	if want := "● demo-web (already running)\n● demo-db (already running)\nAll sessions already running.\n"; r.Stdout != want {
		t.Errorf("up with only gc's bookkeeping to clear:\n%s\nwant:\n%s", r.Stdout, want)
	}
	tags := mustTags(t, root, web.ID)
	for k := range bookkeeping {
		if v, ok := tags[k]; ok {
			t.Errorf("up left gc's %s=%s", k, v)
		}
	}
	web2, _ := byKey(t, root, "web")
	if web2.ID != web.ID || web2.Meta.Tags["role"] != "api" || web2.Meta.Tags["mine"] != "yes" || web2.Meta.Tags["tier"] != "" {
		t.Fatalf("after sync: id %s tags %v", web2.ID, web2.Meta.Tags)
	}

	// A session that died is started again under the same id.
	killDaemon(t, root, db.ID)
	r = mustIn(t, root, dir, "up", "db")
	if r.Stdout != "● demo-db (started)\nStarted 1 session.\n" {
		t.Fatalf("up db after its death:\n%s", r.Stdout)
	}
	if s, _ := layout.At(root).Load("demo-db"); s.Status != layout.Running {
		t.Fatalf("demo-db not running again: %v", s.Status)
	}

	// down stops both, removes the permanent tag first, and the records.
	r = mustIn(t, root, dir, "down")
	if r.Stdout != "○ demo-db (stopped)\n○ demo-web (stopped)\nStopped 2 sessions.\n" && r.Stdout != "○ demo-web (stopped)\n○ demo-db (stopped)\nStopped 2 sessions.\n" {
		t.Fatalf("down output:\n%s", r.Stdout)
	}
	if ids, _ := layout.At(root).IDs(); len(ids) != 0 {
		t.Fatalf("records left after down: %v", ids)
	}
	if proc.Alive(web.Pid) {
		t.Fatalf("web's daemon %d still alive", web.Pid)
	}
}

// upPerm runs pty up of a one-session pty.toml, a permanent "perm", and
// returns its directory and the session.
func upPerm(t *testing.T, root string) (string, layout.Session) {
	t.Helper()
	dir := project(t, "[sessions.perm]\ncommand = \"sleep 300\"\ntags = { strategy = \"permanent\" }\n")
	mustIn(t, root, dir, "up")
	var s layout.Session
	// up returns before the daemon takes over its launch claim.
	testutil.WaitFor(t, 10*time.Second, "perm's daemon", func() bool {
		var ok bool
		s, ok = byKey(t, root, "perm")
		return ok && s.Status == layout.Running && s.Pid > 0
	})
	return dir, s
}

func killDaemon(t *testing.T, root, id string) {
	t.Helper()
	s, err := layout.At(root).Load(id)
	if err != nil || s.Pid == 0 {
		t.Fatalf("load %s: %v (pid %d)", id, err, s.Pid)
	}
	syscall.Kill(s.Pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, id+" to die", func() bool {
		s, err := layout.At(root).Load(id)
		return err == nil && s.Status.Gone()
	})
}

func TestUpDirArgumentAndNames(t *testing.T) {
	root := testutil.Root(t)
	dir := project(t, "[sessions.one]\ncommand = \"sleep 300\"\n[sessions.two]\ncommand = \"sleep 300\"\n")
	parent, name := filepath.Dir(dir), filepath.Base(dir)

	r := mustIn(t, root, parent, "up", name, "two")
	if r.Stdout != "● "+name+"-two (started)\nStarted 1 session.\n" {
		t.Fatalf("up DIR two:\n%s", r.Stdout)
	}
	if _, ok := byKey(t, root, "one"); ok {
		t.Fatal("one was started though only two was named")
	}
	r = in(t, root, parent, "up", name, "three")
	if r.Code != 1 || !strings.Contains(r.Stderr, `declares no session "three" (it declares: one, two)`) {
		t.Fatalf("unknown name: %d %q", r.Code, r.Stderr)
	}
	r = in(t, root, parent, "up", "one")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no pty.toml in") {
		t.Fatalf("no file here: %d %q", r.Code, r.Stderr)
	}
	r = mustIn(t, root, parent, "down", name, "two")
	if r.Stdout != "○ "+name+"-two (stopped)\nStopped 1 session.\n" {
		t.Fatalf("down DIR two:\n%s", r.Stdout)
	}
}

func TestUpRefusesBadFileLeavingNothing(t *testing.T) {
	root := testutil.Root(t)
	cases := []struct{ body, want string }{
		{"[sessions.web]\ncommand = \"x\"\n\ncomand = \"y\"\n", `pty.toml:4: sessions.web: unknown field "comand"`},
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ntags = {}\n", `pty.toml:3: sessions.web: missing command`},
		{"[sessions.web]\ncommand = \"x\"\nid = \"no/slash\"\n", `pty.toml:3: sessions.web: bad id`},
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ncommand = \"x\"\ncwd = \"nowhere\"\n", `pty.toml:3: sessions.web: cwd: Working directory does not exist`},
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ncommand = \"\"\"\n  \n\"\"\"\n", `pty.toml:4: sessions.web: command is empty`},
		{"[sessions.web]\ncommand = \"x\"\n\ncommand = \"y\"\n", `pty.toml:4: invalid TOML: `},
		// A NUL byte cannot reach a program: refused before anything is
		// started, rather than reported started and failing in the daemon.
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ncommand = \"echo a\\u0000b\"\n", `pty.toml:4: sessions.web: command contains a NUL byte`},
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ncommand = \"x\"\ncwd = \"a\\u0000b\"\n", `pty.toml:5: sessions.web: cwd contains a NUL byte`},
		{"[sessions.ok]\ncommand = \"sleep 1\"\n[sessions.web]\ncommand = \"x\"\nenv = { A = \"a\\u0000b\" }\n", `pty.toml:5: sessions.web.env: A contains a NUL byte`},
	}
	for _, c := range cases {
		dir := project(t, c.body)
		r := in(t, root, dir, "up")
		if r.Code != 1 || !strings.HasPrefix(r.Stderr, c.want) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("up with\n%s\nexit %d stderr %q, want one line starting %q", c.body, r.Code, r.Stderr, c.want)
		}
		if !strings.Contains(c.want, "cwd:") { // down does not look at cwd
			r = in(t, root, dir, "down")
			if r.Code != 1 || !strings.HasPrefix(r.Stderr, c.want) || strings.Count(r.Stderr, "\n") != 1 {
				t.Errorf("down with\n%s\nexit %d stderr %q, want one line starting %q", c.body, r.Code, r.Stderr, c.want)
			}
		}
		if ids, _ := layout.At(root).IDs(); len(ids) != 0 {
			t.Fatalf("bad pty.toml left sessions: %v", ids)
		}
	}
}

func TestHelp(t *testing.T) {
	root := testutil.Root(t)
	for _, sub := range []string{"up", "down"} {
		r := testutil.MustRun(t, root, sub, "--help")
		if !strings.Contains(r.Stdout, "pty "+sub+" [DIR] [NAMES...]") {
			t.Errorf("%s --help:\n%s", sub, r.Stdout)
		}
	}
}

func TestDownDeadAndUnknown(t *testing.T) {
	root := testutil.Root(t)
	dir, s := upPerm(t, root)
	killDaemon(t, root, s.ID)

	r := in(t, root, dir, "down", "nosuch")
	if r.Code != 1 || !strings.Contains(r.Stderr, `declares no session "nosuch"`) {
		t.Fatalf("down nosuch: %d %q", r.Code, r.Stderr)
	}
	if _, ok := byKey(t, root, "perm"); !ok {
		t.Fatal("a refused down removed a session")
	}
	r = mustIn(t, root, dir, "down")
	if !strings.Contains(r.Stdout, "(was not running; removed)") || !strings.HasSuffix(r.Stdout, "Stopped 0 sessions.\n") {
		t.Fatalf("down of a dead session:\n%s", r.Stdout)
	}
	if ids, _ := layout.At(root).IDs(); len(ids) != 0 {
		t.Fatalf("left: %v", ids)
	}
}

// TestConcurrentUpStartsEachSessionOnce: ups of one pty.toml at once start
// every declared session once (random ids, so nothing but the identity
// lock keeps them apart); the others report it already running.
func TestConcurrentUpStartsEachSessionOnce(t *testing.T) {
	root := testutil.Root(t)
	dir := project(t, "prefix = \"cc\"\n[sessions.a]\ncommand = \"sleep 300\"\n[sessions.b]\ncommand = \"sleep 300\"\n")
	for round := range 3 {
		const n = 3
		res := make([]testutil.Result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = in(t, root, dir, "up")
			}()
		}
		wg.Wait()
		started := map[string]int{}
		for _, r := range res {
			if r.Code != 0 {
				t.Fatalf("round %d: up: %+v", round, r)
			}
			for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
				if name, ok := strings.CutSuffix(line, " (started)"); ok {
					started[name]++
				}
			}
		}
		all, err := layout.At(root).List()
		if err != nil {
			t.Fatal(err)
		}
		var running []string
		for _, s := range all {
			if s.Status == layout.Running {
				running = append(running, s.Meta.Tags[layout.TagPtyfileSession])
			}
		}
		if len(running) != 2 {
			t.Fatalf("round %d: %d sessions running (%v), want one per key; outputs %+v", round, len(running), running, res)
		}
		if round == 0 && (started["● cc-a"] != 1 || started["● cc-b"] != 1) {
			t.Fatalf("round 0: started lines %v, want one per session; outputs %+v", started, res)
		}
		if round > 0 && len(started) != 0 {
			t.Fatalf("round %d: started %v though both ran; outputs %+v", round, started, res)
		}
		for _, name := range testutil.DirNames(t, root) {
			if strings.HasPrefix(name, manage.IdentityLockPrefix) {
				t.Fatalf("round %d: identity lock %s left behind", round, name)
			}
		}
	}
}

// TestUpAndGcRespawnAtOnce: a permanent pty.toml session whose daemon died,
// then pty up and pty gc at once, many times. gc's respawn takes the
// session's identity lock as up does, so up never races a second start of
// it: up reports it running (exit 0) and one session runs, every round.
func TestUpAndGcRespawnAtOnce(t *testing.T) {
	root := testutil.Root(t)
	dir := project(t, "[sessions.perm]\ncommand = \"sleep 300\"\ntags = { strategy = \"permanent\" }\n")
	mustIn(t, root, dir, "up")
	for round := range 60 {
		s, ok := byKey(t, root, "perm")
		if !ok {
			t.Fatalf("round %d: perm not in the registry", round)
		}
		killDaemon(t, root, s.ID)
		var up, gc, gc2 testutil.Result
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); up = in(t, root, dir, "up") }()
		go func() { defer wg.Done(); gc = in(t, root, dir, "gc") }()
		go func() { defer wg.Done(); gc2 = in(t, root, dir, "gc") }()
		wg.Wait()
		if up.Code != 0 || gc.Code != 0 || gc2.Code != 0 {
			t.Fatalf("round %d: up %+v\ngc %+v", round, up, gc)
		}
		// up and gc return before the daemon they started takes over its
		// launch claim: wait for it, and for no second one.
		testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("round %d: one session running (up %+v, gc %+v, gc %+v)", round, up, gc, gc2), func() (bool, string) {
			all, err := layout.At(root).List()
			if err != nil {
				return false, err.Error()
			}
			running := 0
			for _, s := range all {
				if s.Status == layout.Running && s.Pid > 0 {
					running++
				}
			}
			return len(all) == 1 && running == 1, fmt.Sprintf("%d records, %d running", len(all), running)
		})
	}
}

// TestStaleIdentityLock: an up that died holding a session's identity lock
// (a pid file naming a dead process) stops neither gc's respawn nor down,
// and gc removes it as debris once nobody uses it.
func TestStaleIdentityLock(t *testing.T) {
	root := testutil.Root(t)
	dir, s := upPerm(t, root)
	abs, err := filepath.Abs(filepath.Join(dir, "pty.toml"))
	if err != nil {
		t.Fatal(err)
	}
	lock := manage.IdentityLock(root, abs, "perm")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := func() {
		if err := os.WriteFile(lock, []byte(strconv.Itoa(dead.Process.Pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(lock, old, old); err != nil {
			t.Fatal(err)
		}
	}
	stale()
	killDaemon(t, root, s.ID)
	r := mustIn(t, root, dir, "gc")
	if !strings.Contains(r.Stdout, "Respawned: "+s.ID) {
		t.Fatalf("gc with a stale identity lock did not respawn:\n%s", r.Stdout)
	}
	stale()
	r = mustIn(t, root, dir, "gc")
	if !strings.Contains(r.Stdout, "Removed debris: "+filepath.Base(lock)) {
		t.Fatalf("gc left a stale identity lock:\n%s", r.Stdout)
	}
	if _, err := os.Lstat(lock); !os.IsNotExist(err) {
		t.Fatalf("stale identity lock still there: %v", err)
	}
	testutil.WaitFor(t, 10*time.Second, "the respawned daemon", func() bool {
		s, ok := byKey(t, root, "perm")
		return ok && s.Status == layout.Running && s.Pid > 0
	})
	stale()
	r = mustIn(t, root, dir, "down")
	if !strings.Contains(r.Stdout, "(stopped)") {
		t.Fatalf("down with a stale identity lock:\n%s", r.Stdout)
	}
	if ids, _ := layout.At(root).IDs(); len(ids) != 0 {
		t.Fatalf("left: %v", ids)
	}
}

func mustTags(t *testing.T, root, id string) map[string]string {
	t.Helper()
	s, err := layout.At(root).Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Meta.Tags
}

// pty down stops a shell as pty kill does: its foreground job is hung up
// once and gets the time to save its work, and the shell saves its
// history. up runs the shell through sh -c, so the hangup reaches the sh
// and the job, not the shell, which ignores the SIGTERM that follows: it
// is hung up in its place. The job takes 300 ms to save and logs every
// SIGHUP.
func TestDownHangsUpTheShellAndItsJobOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	tmp := t.TempDir()
	hist, got := filepath.Join(tmp, "history"), filepath.Join(tmp, "job")
	dir := project(t, "[sessions.sh]\ncommand = \"bash --norc -i\"\nenv = { HISTFILE = \""+hist+"\", PS1 = \"ready> \" }\n")
	mustIn(t, root, dir, "up")
	s, ok := byKey(t, root, "sh")
	if !ok {
		t.Fatal("up started no session")
	}
	peek := func(text string, n int) {
		t.Helper()
		testutil.WaitForState(t, 10*time.Second, "the screen to show "+text, func() (bool, string) {
			r := testutil.Run(t, root, "peek", "--plain", s.ID)
			return strings.Count(r.Stdout, text) >= n, r.Stdout
		})
	}
	peek("ready>", 1)
	testutil.MustRun(t, root, "send", s.ID, "echo remember-me\r")
	peek("remember-me", 2)
	job := `perl -MTime::HiRes=time,sleep -e '$SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; $end ||= time + 0.3 }; $| = 1; print "job-", "running\n"; sleep 0.01 until $end && time > $end; open(F, ">>", $ARGV[0]); print F "saved\n"; close F' ` + got + "\r"
	testutil.MustRun(t, root, "send", s.ID, job)
	peek("job-running", 1)

	mustIn(t, root, dir, "down")
	if b, err := os.ReadFile(hist); err != nil || !strings.Contains(string(b), "echo remember-me") {
		t.Errorf("history after down: %q, %v; want the typed line", b, err)
	}
	if b, _ := os.ReadFile(got); string(b) != "HUP\nsaved\n" {
		t.Errorf("the foreground job saw %q, want one SIGHUP and the time to save", b)
	}
}
