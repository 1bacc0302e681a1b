package restart

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ptyorg/pty/internal/relaunchtest"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

func TestRestartStoppedSessionKeepsItsSettings(t *testing.T) {
	root := testutil.Root(t)
	cwd := t.TempDir()
	testutil.MustRun(t, root, "run", "-d", "--id", "svc", "--name", "my service", "--cwd", cwd,
		"--tag", "team=a", "--tag", "strategy=permanent", "--tag", "strategy.status=flapping",
		"--tag", "strategy.consecutive-fast-fails=3", "--tag", "strategy.last-respawn-at=2020-01-01T00:00:00.000Z",
		"--tag", "strategy.command-hash=abc", "--env", "FOO=bar",
		"--", "sh", "-c", `echo "$FOO $(pwd)" > marker; exec sleep 1000`)
	marker := filepath.Join(cwd, "marker")
	testutil.WaitFor(t, 10*time.Second, "the first run's marker", func() bool { _, err := os.Stat(marker); return err == nil })
	before, _ := layout.At(root).Metadata("svc")
	testutil.MustRun(t, root, "kill", "svc")
	os.Remove(marker)

	r := testutil.MustRun(t, root, "restart", "svc")
	if r.Stdout != "Session \"svc\" restarted.\n" {
		t.Errorf("restart output %q", r.Stdout)
	}
	s, err := layout.At(root).Load("svc")
	if err != nil || s.Status != layout.Running {
		t.Fatalf("after restart: %+v %v", s, err)
	}
	m := s.Meta
	if m.DisplayName == nil || *m.DisplayName != "my service" || m.Cwd != before.Cwd || m.DisplayCommand != before.DisplayCommand || m.ExtraEnv["FOO"] != "bar" {
		t.Errorf("restarted with other settings: %+v", m)
	}
	if m.Tags["team"] != "a" {
		t.Errorf("tags after restart = %v", m.Tags)
	}
	for _, k := range []string{"strategy.status", "strategy.consecutive-fast-fails", "strategy.last-respawn-at", "strategy.command-hash"} {
		if _, ok := m.Tags[k]; ok {
			t.Errorf("restart kept gc bookkeeping tag %s", k)
		}
	}
	if m.Generation == before.Generation {
		t.Errorf("restart kept the old generation %s", m.Generation)
	}
	testutil.WaitFor(t, 10*time.Second, "the restarted command's marker", func() bool {
		b, _ := os.ReadFile(marker)
		return strings.TrimSpace(string(b)) == "bar "+cwd
	})
}

func TestRestartRunningSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "live", "--tag", "strategy=permanent", "--", "sleep", "1000")
	old := layout.At(root).Pid("live")
	oldTree, _ := procs.Tree(old)

	// Without a terminal and without -y, restart must not guess.
	cmd := testutil.Command(t, root, "", "restart", "live")
	cmd.Stdin = strings.NewReader("y\n")
	r := testutil.RunCmd(t, cmd)
	if r.Code != 1 || !strings.Contains(r.Stderr, "-y") {
		t.Errorf("restart without -y on a pipe: exit %d stderr %q", r.Code, r.Stderr)
	}
	if layout.At(root).Pid("live") != old {
		t.Fatal("refused restart touched the session")
	}

	testutil.MustRun(t, root, "restart", "-y", "live")
	s, err := layout.At(root).Load("live")
	if err != nil || s.Status != layout.Running || s.Pid == old {
		t.Fatalf("after restart -y: %+v %v (old daemon %d)", s, err, old)
	}
	for _, p := range oldTree {
		if procs.Still(p) {
			t.Errorf("process %d of the old session survived the restart", p.Pid)
		}
	}
	// Restart is not kill: the session stays permanent.
	if s.Meta.Tags["strategy"] != "permanent" {
		t.Errorf("restart dropped permanence: %v", s.Meta.Tags)
	}
}

// restartOnTerminal runs `pty restart REF` on a terminal and answers its
// question with answer.
func restartOnTerminal(t *testing.T, root, ref, answer string) (string, int) {
	t.Helper()
	cmd := testutil.Command(t, root, "", "restart", ref)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				close(read)
				return
			}
		}
	}()
	testutil.WaitFor(t, 30*time.Second, "the prompt", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(out.String(), "Kill and restart? [Y/n]")
	})
	tty.Write([]byte(answer + "\r"))
	cmd.Wait()
	<-read
	mu.Lock()
	defer mu.Unlock()
	return out.String(), cmd.ProcessState.ExitCode()
}

func TestRestartAsksOnATerminal(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ask", "--", "sleep", "1000")
	old := layout.At(root).Pid("ask")

	out, code := restartOnTerminal(t, root, "ask", "n")
	if code != 0 || !strings.Contains(out, "Not restarted.") || layout.At(root).Pid("ask") != old {
		t.Errorf("answering n: exit %d, output %q, pid %d (was %d)", code, out, layout.At(root).Pid("ask"), old)
	}
	out, code = restartOnTerminal(t, root, "ask", "")
	if code != 0 || !strings.Contains(out, `Session "ask" restarted.`) {
		t.Errorf("answering Enter: exit %d, output %q", code, out)
	}
	if s, err := layout.At(root).Load("ask"); err != nil || s.Status != layout.Running || s.Pid == old {
		t.Errorf("after restart: %+v %v", s, err)
	}
}

// Restarting a session whose exit is recorded while its daemon is still
// shutting down (the original pty's daemon lingers after recording the
// exit) waits for that daemon instead of failing with "already running".
// The lingering daemon is a process named pty-daemon that ends after a
// second.
func TestRestartWaitsForLingeringDaemon(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "quick", "--tag", "keep=true", "--", "sh", "-c", "exit 4")
	testutil.WaitFor(t, 10*time.Second, "the session to finish", func() bool {
		s, err := layout.At(root).Load("quick")
		return err == nil && s.Status == layout.Exited && layout.At(root).Pid("quick") == 0
	})
	link := filepath.Join(t.TempDir(), "pty-daemon")
	if err := os.Symlink("/bin/sleep", link); err != nil {
		t.Fatal(err)
	}
	lingering := exec.Command(link, "1")
	if err := lingering.Start(); err != nil {
		t.Fatal(err)
	}
	go lingering.Wait()
	os.WriteFile(layout.At(root).Paths("quick").Pid(), []byte(strconv.Itoa(lingering.Process.Pid)), 0o600)
	if r := testutil.Run(t, root, "restart", "-y", "quick"); r.Code != 0 {
		t.Fatalf("restart exit %d: %s", r.Code, r.Stderr)
	}
	if s, err := layout.At(root).Load("quick"); err != nil || s.Status == layout.Vanished {
		t.Fatalf("after restart: %v %v", s.Status, err)
	}
}

// Restarting an AI agent throws away its conversation: refused unless
// --force, whether the session is tagged role=agent or resumes claude.
func TestRestartRefusesAgentsUnlessForced(t *testing.T) {
	root := testutil.Root(t)
	bin := t.TempDir()
	fake := filepath.Join(bin, "claude")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexec sleep 1000\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "tagged", "--tag", "role=agent", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "resumes", "--", fake, "--resume", "abc")
	testutil.MustRun(t, root, "run", "-d", "--id", "plain", "--", fake, "--print", "hi")
	for _, id := range []string{"tagged", "resumes"} {
		gen := func() string { m, _ := layout.At(root).Metadata(id); return m.Generation }
		before := gen()
		r := testutil.Run(t, root, "restart", "-y", id)
		if r.Code != 1 || !strings.Contains(r.Stderr, "AI agent") || !strings.Contains(r.Stderr, "--force") {
			t.Errorf("restart -y %s: code %d stderr %q", id, r.Code, r.Stderr)
		}
		if gen() != before {
			t.Errorf("restart of %s was refused but the session was restarted anyway", id)
		}
		testutil.MustRun(t, root, "restart", "-y", "--force", id)
		if gen() == before {
			t.Errorf("restart --force %s did not restart it", id)
		}
	}
	testutil.MustRun(t, root, "restart", "-y", "plain")
}

// TestRestartIsARelaunch: the rules every way of starting a session again
// shares (lifecycle.Relaunch), through pty restart.
func TestRestartIsARelaunch(t *testing.T) {
	root := testutil.Root(t)
	e := relaunchtest.Start(t, root, "flap", true)
	cmd := testutil.Command(t, root, "", "restart", "-y", "flap")
	cmd.Env = append(cmd.Env, relaunchtest.AgentEnv)
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("restart: %+v", r)
	}
	e.CheckRelaunched(t, root, false)
}

// TestRestartRefusesNULInRecord: a record another tool wrote can hold a
// NUL byte in an argument, which no exec can pass. restart says so and
// leaves the record as it was, rather than reporting the session
// restarted while its daemon fails to start the command.
func TestRestartRefusesNULInRecord(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "nul", "--tag", "keep=1", "--", "sh", "-c", "exit 0")
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		s, err := layout.At(root).Load("nul")
		return err == nil && s.Status == layout.Exited
	})
	meta := layout.At(root).Paths("nul").Meta()
	b, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"exit 0"`), []byte(`"exit 0\u0000"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("no argument to edit in %s", b)
	}
	if err := os.WriteFile(meta, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	r := testutil.Run(t, root, "restart", "nul")
	if r.Code != 1 || !strings.Contains(r.Stderr, "argument 2") || !strings.Contains(r.Stderr, "NUL byte") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("restart of a record with a NUL byte: %+v, want exit 1 and one line naming it", r)
	}
	if after, _ := os.ReadFile(meta); !bytes.Equal(after, edited) {
		t.Errorf("the refused restart changed the record:\n%s", after)
	}
}

// restart stops a running shell as pty kill does: the shell saves its
// history, its foreground job is hung up once (by the shell) and gets the
// time to save its work, before the new run starts. The job takes 300 ms
// to save and logs every SIGHUP.
func TestRestartHangsUpTheShellAndItsJobOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	dir := t.TempDir()
	hist, got := filepath.Join(dir, "history"), filepath.Join(dir, "job")
	testutil.MustRun(t, root, "run", "-d", "--id", "sh", "--env", "HISTFILE="+hist, "--env", "PS1=ready> ", "--", "bash", "--norc", "-i")
	peek := func(text string, n int) {
		t.Helper()
		testutil.WaitForState(t, 10*time.Second, "the screen to show "+text, func() (bool, string) {
			r := testutil.Run(t, root, "peek", "--plain", "sh")
			return strings.Count(r.Stdout, text) >= n, r.Stdout
		})
	}
	peek("ready>", 1)
	testutil.MustRun(t, root, "send", "sh", "echo remember-me\r")
	peek("remember-me", 2)
	job := `perl -MTime::HiRes=time,sleep -e '$SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; $end ||= time + 0.3 }; $| = 1; print "job-", "running\n"; sleep 0.01 until $end && time > $end; open(F, ">>", $ARGV[0]); print F "saved\n"; close F' ` + got + "\r"
	testutil.MustRun(t, root, "send", "sh", job)
	peek("job-running", 1)
	before, _ := layout.At(root).Metadata("sh")

	testutil.MustRun(t, root, "restart", "-y", "sh")
	if b, err := os.ReadFile(hist); err != nil || !strings.Contains(string(b), "echo remember-me") {
		t.Errorf("history after restart: %q, %v; want the typed line", b, err)
	}
	if b, _ := os.ReadFile(got); string(b) != "HUP\nsaved\n" {
		t.Errorf("the foreground job saw %q, want one SIGHUP and the time to save", b)
	}
	// The new run's record and log replace the old ones; it starts as
	// the old one did.
	if m, err := layout.At(root).Metadata("sh"); err != nil || m.Generation == before.Generation || m.Exited() {
		t.Errorf("record after restart: %+v, %v; want a new generation, running", m, err)
	}
	peek("ready>", 1)
}
