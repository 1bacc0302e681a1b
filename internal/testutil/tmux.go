package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Tmux is a private tmux server whose one pane stands in for the user's
// terminal: send-keys types into it as a person would (tmux encodes each
// key for the modes of the program in the pane), and capture-pane reads
// the screen the person would see.
type Tmux struct {
	t      testing.TB
	socket string
}

// StartTmux runs shell command line cmdline, with the environment of Env
// for root, in a new rows x cols tmux pane. The pane stays when the
// command exits (remain-on-exit), so a test can read the last screen and
// the exit status.
func StartTmux(t testing.TB, root string, rows, cols int, cmdline string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		MissingTool(t, "tmux")
	}
	tm := &Tmux{t: t, socket: fmt.Sprintf("ptyt%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	var env strings.Builder
	for _, kv := range Env(t, root) {
		if strings.HasPrefix(kv, "TERM=") {
			continue // the pane's own, tmux's
		}
		env.WriteString(" " + shellQuote(kv))
	}
	line := "exec env -u TMUX" + env.String() + " sh -c " + shellQuote(cmdline)
	out, err := exec.Command("tmux", "-L", tm.socket, "-f", "/dev/null", "new-session", "-d",
		"-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), line, ";",
		"set-option", "remain-on-exit", "on").CombinedOutput()
	if err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	return tm
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Screen is the pane's screen as plain text, one line a row.
func (tm *Tmux) Screen() string {
	out, _ := exec.Command("tmux", "-L", tm.socket, "capture-pane", "-p").Output()
	return string(out)
}

// Keys types keys as tmux's send-keys names them ("Down", "C-a", "KP5").
func (tm *Tmux) Keys(keys ...string) {
	tm.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-L", tm.socket, "send-keys"}, keys...)...).CombinedOutput(); err != nil {
		tm.t.Fatalf("send-keys %q: %v %s", keys, err, out)
	}
}

// WaitScreen waits up to 15 s for the screen to satisfy cond.
func (tm *Tmux) WaitScreen(what string, cond func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tm.Screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitText waits for the screen to contain s.
func (tm *Tmux) WaitText(s string) string {
	tm.t.Helper()
	return tm.WaitScreen(fmt.Sprintf("%q on the screen", s), func(scr string) bool { return strings.Contains(scr, s) })
}

// Exited reports whether the pane's command has ended, and its status.
func (tm *Tmux) Exited() (bool, int) {
	out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "#{pane_dead} #{pane_dead_status}").Output()
	dead, status, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	code, _ := strconv.Atoi(status)
	return dead == "1", code
}

// WaitExit waits up to 15 s for the pane's command to end and returns its
// exit status.
func (tm *Tmux) WaitExit() int {
	tm.t.Helper()
	code := 0
	WaitFor(tm.t, 15*time.Second, "the command in the tmux pane to exit", func() bool {
		var dead bool
		dead, code = tm.Exited()
		return dead
	})
	return code
}

// TTY is the pane's terminal device (/dev/pts/N).
func (tm *Tmux) TTY() string {
	out, _ := exec.Command("tmux", "-L", tm.socket, "display-message", "-p", "#{pane_tty}").Output()
	return strings.TrimSpace(string(out))
}
