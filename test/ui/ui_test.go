package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/relaunchtest"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// tmuxTerm is a private tmux server running one command in a 120x30
// window: the picker gets a real terminal, send-keys types into it and
// capture-pane reads the screen, as a person would see it.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

func startTmux(t *testing.T, root string, args ...string) *tmuxTerm {
	t.Helper()
	return startTmuxEnv(t, root, nil, args...)
}

// startTmuxEnv is startTmux with env ("K=V") added to the picker's
// environment.
func startTmuxEnv(t *testing.T, root string, env []string, args ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testutil.MissingTool(t, "tmux")
	}
	bin := testutil.BinDir(t)
	tm := &tmuxTerm{t: t, socket: fmt.Sprintf("ptyui%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	cmdline := fmt.Sprintf("env -u PTY_SESSION -u TMUX PTY_ROOT=%s PATH=%s:%s SHELL=/bin/sh HOME=%s %s %s",
		root, bin, os.Getenv("PATH"), t.TempDir(), strings.Join(env, " "), filepath.Join(bin, "pty"))
	for _, a := range args {
		cmdline += " " + a
	}
	// remain-on-exit keeps the pane (and what the picker printed last) when
	// the picker exits, so the test can tell a quit from a crash.
	out, err := exec.Command("tmux", "-L", tm.socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "30", cmdline, ";",
		"set-option", "remain-on-exit", "on").CombinedOutput()
	if err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return tm
}

func (tm *tmuxTerm) screen() string {
	out, err := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

func (tm *tmuxTerm) keys(keys ...string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", tm.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %q: %v %s", keys, err, out)
	}
}

func (tm *tmuxTerm) text(s string) { tm.keys("-l", s) }

// waitScreen waits until the screen satisfies cond.
func (tm *tmuxTerm) waitScreen(what string, cond func(string) bool) {
	tm.t.Helper()
	testutil.WaitForState(tm.t, 15*time.Second, what, func() (bool, string) {
		s := tm.screen()
		return cond(s), "screen:\n" + s
	})
}

func (tm *tmuxTerm) waitFor(what string, parts ...string) {
	tm.t.Helper()
	tm.waitScreen(what, func(s string) bool {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				return false
			}
		}
		return true
	})
}

func (tm *tmuxTerm) paneDead() bool {
	out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "#{pane_dead}").Output()
	return strings.TrimSpace(string(out)) == "1"
}

func runDetached(t *testing.T, root string, args ...string) string {
	t.Helper()
	r := testutil.MustRun(t, root, append([]string{"run", "-d"}, args...)...)
	id, ok := strings.CutPrefix(strings.TrimSpace(r.Stdout), "Session \"")
	if !ok {
		t.Fatalf("run -d printed %q", r.Stdout)
	}
	return strings.TrimSuffix(id, "\" created.")
}

func TestPickerAttachDetachRestartQuit(t *testing.T) {
	root := testutil.Root(t)
	alpha := runDetached(t, root, "--name", "alpha", "--", "sh", "-c", "echo ALPHA-READY; exec cat")
	beta := runDetached(t, root, "--name", "beta", "--", "sleep", "300")

	tm := startTmux(t, root)
	tm.waitFor("both sessions listed", "alpha", "beta", alpha, beta, "2 of 2 sessions", "+ Create new session...")

	// Typing filters.
	tm.text("alph")
	tm.waitScreen("the filter to narrow the list", func(s string) bool {
		return strings.Contains(s, "1 of 2 sessions") && strings.Contains(s, "> alph") && !strings.Contains(s, "beta")
	})

	// Enter attaches: the session's own screen replaces the picker.
	tm.keys("Enter")
	tm.waitScreen("alpha's screen", func(s string) bool {
		return strings.Contains(s, "ALPHA-READY") && !strings.Contains(s, "sessions")
	})
	tm.text("typed-into-alpha")
	tm.keys("Enter")
	tm.waitFor("cat to echo", "typed-into-alpha")

	// Ctrl+\ detaches back to the picker, filter intact.
	tm.keys(`C-\`)
	tm.waitFor("the picker again", "Detached from "+alpha, "> alph", "1 of 2 sessions")

	// An exited session offers a restart.
	testutil.MustRun(t, root, "kill", beta)
	tm.keys("C-u")
	tm.text("beta")
	tm.waitFor("beta listed as exited", "○ "+beta)
	tm.keys("Enter")
	tm.waitFor("the restart prompt", "beta was killed by SIGHUP", "Command was: sleep 300", "Restart? [Y/n]")
	tm.keys("y")
	testutil.WaitFor(t, 15*time.Second, "beta to run again", func() bool {
		s, err := layout.At(root).Load(beta)
		return err == nil && s.Status == layout.Running
	})
	tm.waitScreen("attached to beta", func(s string) bool { return !strings.Contains(s, "Restart?") && !strings.Contains(s, "sessions") })
	// beta prints nothing to wait for: wait until its daemon counts the
	// client, so Ctrl+\ reaches a terminal that attach has made raw
	// (before that it is the terminal's SIGQUIT).
	testutil.WaitFor(t, 10*time.Second, "the client attached to beta", func() bool {
		var st struct {
			Clients struct {
				Attached int `json:"attached"`
			} `json:"clients"`
		}
		r := testutil.Run(t, root, "stats", "--json", beta)
		return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &st) == nil && st.Clients.Attached > 0
	})
	tm.keys(`C-\`)
	tm.waitFor("the picker after beta", "Detached from "+beta, "● "+beta)

	// q on an empty filter quits.
	tm.keys("C-u")
	tm.waitFor("an empty filter", "2 of 2 sessions")
	tm.keys("q")
	testutil.WaitFor(t, 10*time.Second, "the picker to exit", tm.paneDead)
}

func TestPickerCreatesSessionWithFilterTags(t *testing.T) {
	root := testutil.Root(t)
	other := runDetached(t, root, "--name", "other", "--", "sleep", "300")
	dir := t.TempDir()

	tm := startTmux(t, root, "ui", "--filter-tag", "team=red")
	tm.waitFor("an empty scoped list", "team=red", "0 of 0 sessions", "+ Create new session...")
	if strings.Contains(tm.screen(), other) {
		t.Fatal("a session without the tag is listed")
	}
	tm.keys("Enter")
	tm.waitFor("the directory prompt", "Create new session", "Directory:")
	tm.keys("C-u")
	tm.text(dir)
	tm.keys("Enter")
	tm.waitFor("the command prompt", "Command:   /bin/sh")
	tm.keys("C-u")
	tm.text("sh -c 'echo NEW-SESSION-$PWD; exec cat'")
	tm.keys("Enter")
	tm.waitFor("the new session's screen", "NEW-SESSION-"+dir)

	r := testutil.MustRun(t, root, "list", "--json", "--filter-tag", "team=red")
	var list []struct {
		Name, Cwd, Command string
		Tags               map[string]string
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %v %s", err, r.Stdout)
	}
	if list[0].Cwd != dir || list[0].Tags["team"] != "red" || list[0].Command != "sh -c 'echo NEW-SESSION-$PWD; exec cat'" {
		t.Fatalf("new session: %+v", list[0])
	}
	tm.keys(`C-\`)
	tm.waitFor("the picker with the new session", "Detached from "+list[0].Name, "1 of 1 sessions")
	tm.keys("Escape")
	testutil.WaitFor(t, 10*time.Second, "the picker to exit", tm.paneDead)
}

func TestPickerRefusals(t *testing.T) {
	root := testutil.Root(t)
	cmd := testutil.Command(t, root, "ui")
	cmd.Env = append(cmd.Env, "PTY_SESSION=outer")
	r := testutil.RunCmd(t, cmd)
	if r.Code != 1 || !strings.Contains(r.Stderr, `already inside pty session "outer"`) || !strings.Contains(r.Stderr, `Ctrl+\`) {
		t.Fatalf("nested: %d %q", r.Code, r.Stderr)
	}
	r = testutil.Run(t, root, "ui")
	if r.Code != 1 || !strings.Contains(r.Stderr, "needs a terminal") {
		t.Fatalf("no terminal: %d %q", r.Code, r.Stderr)
	}
	r = testutil.Run(t, root, "ui", "--filter-tag", "novalue")
	if r.Code != 1 || !strings.Contains(r.Stderr, "--filter-tag") {
		t.Fatalf("bad tag: %d %q", r.Code, r.Stderr)
	}
	r = testutil.MustRun(t, root, "ui", "--help")
	if !strings.Contains(r.Stdout, "--filter-tag") {
		t.Fatalf("help: %s", r.Stdout)
	}
}

// TestPickerRestartIsARelaunch: the picker's restart follows the rules
// every way of starting a session again shares (lifecycle.Relaunch).
func TestPickerRestartIsARelaunch(t *testing.T) {
	root := testutil.Root(t)
	e := relaunchtest.Start(t, root, "flap", true)
	tm := startTmuxEnv(t, root, []string{relaunchtest.AgentEnv})
	tm.waitFor("flap listed as exited", "○ flap")
	tm.text("flap")
	tm.keys("Enter")
	tm.waitFor("the restart prompt", "Restart? [Y/n]")
	tm.keys("y")
	e.CheckRelaunched(t, root, false)
}
