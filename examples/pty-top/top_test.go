package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// pluginDir builds pty-top into a directory of its own, as a third
// party's plugin would be installed: not beside pty, only on $PATH.
func pluginDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "pty-top"), ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build pty-top: %v\n%s", err, out)
	}
	return dir
}

// top runs "pty top args..." through the real dispatcher (the pty that
// testutil builds from cmd/pty) with the plugin's directory last on $PATH.
func top(t *testing.T, root, plugins string, args ...string) testutil.Result {
	t.Helper()
	return pty(t, root, plugins, append([]string{"top"}, args...)...)
}

func pty(t *testing.T, root, plugins string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	for i, kv := range cmd.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			cmd.Env[i] = "PATH=" + p + ":" + plugins
		}
	}
	return testutil.RunCmd(t, cmd)
}

// sessions starts the registry the tests look at: "busy" runs, "failed"
// exited 3 (a failed session's record is kept for inspection) and, past
// its grace period, its daemon is gone.
func sessions(t *testing.T) (root string) {
	root = testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--name", "busy", "--", "sleep", "100")
	testutil.MustRun(t, root, "run", "-d", "--name", "failed", "--", "sh", "-c", "exit 3")
	testutil.WaitForState(t, 20*time.Second, "busy running and failed exited", func() (bool, string) {
		ss, err := open(t, root).List()
		if err != nil {
			return false, err.Error()
		}
		var st []string
		ok := 0
		for _, s := range ss {
			st = append(st, s.Name()+"="+string(s.Status))
			if (s.Name() == "busy" && s.Status == layout.Running && s.Pid > 0) || (s.Name() == "failed" && s.Status == layout.Exited) {
				ok++
			}
		}
		return ok == 2, strings.Join(st, " ")
	})
	return root
}

func open(t *testing.T, root string) *layout.Registry {
	t.Helper()
	r, err := layout.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTopThroughDispatcher(t *testing.T) {
	plugins := pluginDir(t)
	root := sessions(t)
	busy, err := open(t, root).Resolve("busy")
	if err != nil {
		t.Fatal(err)
	}

	// run -d returns before the daemon has started the command: wait
	// until the daemon's tree holds it (the daemon and sleep).
	var rows []Row
	testutil.WaitForState(t, 20*time.Second, "busy measured with its command", func() (bool, string) {
		r := top(t, root, plugins, "--once", "--json", "--interval", "50ms")
		if r.Code != 0 {
			t.Fatalf("pty top --once --json: exit %d: %s", r.Code, r.Stderr)
		}
		rows = nil
		if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
			t.Fatalf("pty top --json printed %q: %v", r.Stdout, err)
		}
		return len(rows) == 2 && rows[0].Procs >= 2, r.Stdout
	})
	b, f := rows[0], rows[1]
	if b.Name != "busy" || b.ID != busy.ID || b.Status != layout.Running || b.Pid != busy.Pid {
		t.Errorf("first row %+v, want busy (%s) running with pid %d", b, busy.ID, busy.Pid)
	}
	if runtime.GOOS == "linux" {
		if b.Pss == nil || *b.Pss <= 0 || b.CPU == nil || *b.CPU < 0 {
			t.Errorf("busy: memory %v, CPU %v; want both measured", b.Pss, b.CPU)
		}
	}
	if b.Command != "sleep 100" {
		t.Errorf("busy's command is %q", b.Command)
	}
	if f.Name != "failed" || f.Status != layout.Exited || f.ExitCode == nil || *f.ExitCode != 3 || f.Pid != 0 || f.Pss != nil || f.CPU != nil {
		t.Errorf("second row %+v, want failed: exited 3, not measured", f)
	}

	// The table, as people read it.
	r := top(t, root, plugins, "--once", "--interval", "50ms")
	if r.Code != 0 {
		t.Fatalf("pty top --once: exit %d: %s", r.Code, r.Stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("table:\n%s", r.Stdout)
	}
	if fs := strings.Fields(lines[1]); fs[0] != "busy" || fs[2] != "running" || fs[5] == "-" || fs[5] == notAvailable && runtime.GOOS == "linux" {
		t.Errorf("busy's line: %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "failed") || !strings.Contains(lines[2], "exited (3)") {
		t.Errorf("failed's line: %q", lines[2])
	}

	// REFs pick sessions, by name or id, as every pty command takes them.
	r = top(t, root, plugins, "--once", "--json", "--interval", "10ms", busy.ID)
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil || len(rows) != 1 || rows[0].Name != "busy" {
		t.Errorf("pty top %s: %q %v", busy.ID, r.Stdout, err)
	}
	if r := pty(t, root, plugins, "help"); !strings.Contains(r.Stdout[strings.Index(r.Stdout, "Plugins (pty-* on PATH):")+1:], "\n  top\n") {
		t.Errorf("pty help does not list the plugin:\n%s", r.Stdout)
	}
	r = top(t, root, plugins, "--once", "nope")
	if r.Code != 1 || r.Stdout != "" || r.Stderr != "pty top: Session \"nope\" not found.\n" {
		t.Errorf("unknown REF: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
}

// TestLiveView runs the live view in-process: it redraws on the alternate
// screen until Done is closed, then gives the terminal back.
func TestLiveView(t *testing.T) {
	root := sessions(t)
	var out testutil.SyncBuffer
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- Run(Options{Interval: 20 * time.Millisecond}, IO{Out: &out, Err: &out, Registry: open(t, root), Done: done, Terminal: true, Width: func() int { return 40 }})
	}()
	testutil.WaitForState(t, 20*time.Second, "three frames", func() (bool, string) {
		return strings.Count(out.String(), "\x1b[H\x1b[2J") >= 3, out.String()
	})
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.HasPrefix(s, "\x1b[?1049h\x1b[?25l") || !strings.HasSuffix(s, "\x1b[?25h\x1b[?1049l") {
		t.Errorf("the live view does not enter and leave the alternate screen: %q", s)
	}
	frames := strings.Split(s, "\x1b[H\x1b[2J")
	last := frames[len(frames)-2] // the one before the restore
	for _, l := range strings.Split(last, "\n") {
		if len([]rune(l)) > 40 {
			t.Errorf("line wider than the terminal: %q", l)
		}
	}
	if !strings.Contains(last, "busy") || !strings.Contains(last, "failed") {
		t.Errorf("frame:\n%s", last)
	}
}

func TestSafe(t *testing.T) {
	for in, want := range map[string]string{
		"web server":       "web server",
		"caf\u00e9":        "caf\u00e9",
		"\x1b]0;pwned\x07": `\x1b]0;pwned\a`,
		"abc\u202edcba":    `abc\u202edcba`,
		"bad\xffutf8":      `bad\xffutf8`,
	} {
		if got := safe(in); got != want {
			t.Errorf("safe(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	var help bytes.Buffer
	if _, err := Parse([]string{"--help"}, &help); err != errHelp || !strings.Contains(help.String(), "Usage: pty top") || !strings.Contains(help.String(), "-interval") {
		t.Errorf("--help: %v %q", err, help.String())
	}
	for _, bad := range [][]string{{"--interval", "0s"}, {"--interval", "2h"}, {"--frob"}} {
		if _, err := Parse(bad, nil); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): %v; want a one-line error", bad, err)
		}
	}
	o, err := Parse([]string{"--once", "--json", "web", "db"}, nil)
	if err != nil || !o.Once || !o.JSON || o.Interval != time.Second || strings.Join(o.Refs, ",") != "web,db" {
		t.Errorf("Parse: %+v %v", o, err)
	}
}
