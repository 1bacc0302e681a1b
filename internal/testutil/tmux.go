package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Tmux is a private tmux server whose one pane stands in for the user's
// terminal: send-keys types into it as a person would (tmux encodes each
// key for the modes of the program in the pane), and capture-pane reads
// the screen the person would see and the scrollback they would scroll
// through (a history of 200,000 lines).
type Tmux struct {
	t      testing.TB
	socket string
	status string // where a StartTmux pane's shell writes the exit status
}

var tmuxServers atomic.Int32

// StartTmux runs shell command line cmdline, with the environment of Env
// for root, in a new rows x cols tmux pane. The pane's shell then writes
// the command's exit status to a file (Exited, WaitExit) and sleeps, so
// a test can read the last screen: had the pane's process ended, tmux
// could drop what it printed last, since tmux gives up a pane whose
// process has exited once the pty's read queue is empty, which it may be
// while the kernel still moves the last write towards it.
func StartTmux(t testing.TB, root string, rows, cols int, cmdline string) *Tmux {
	t.Helper()
	var env []string
	for _, kv := range Env(t, root) {
		if !strings.HasPrefix(kv, "TERM=") { // the pane's own, tmux's
			env = append(env, kv)
		}
	}
	status := filepath.Join(t.TempDir(), "status")
	line := "env -u TMUX " + shellJoin(env) + " sh -c " + shellQuote(cmdline) +
		"; echo $? >" + shellQuote(status+".new") + " && mv " + shellQuote(status+".new") + " " + shellQuote(status) +
		"; exec sleep 3600"
	tm := newTmux(t, rows, cols, line)
	tm.status = status
	return tm
}

// StartUserTmux runs "pty args..." against root in a rows x cols tmux
// pane, with env added to the command's environment. A shell that only
// sleeps takes over the pane when the command ends, so its last words
// stay on the screen with nothing added below them.
func StartUserTmux(t testing.TB, root string, rows, cols int, env []string, args ...string) *Tmux {
	t.Helper()
	env = append([]string{"PTY_ROOT=" + root}, env...)
	return StartUserTmuxCmd(t, rows, cols, env, append([]string{filepath.Join(BinDir(t), "pty")}, args...)...)
}

// StartUserTmuxCmd is StartUserTmux for any command (argv).
func StartUserTmuxCmd(t testing.TB, rows, cols int, env []string, argv ...string) *Tmux {
	t.Helper()
	shell := append(append([]string{"env", "PTY_SESSION=", "LANG=C.UTF-8"}, env...), argv...)
	return newTmux(t, rows, cols, shellJoin(shell)+"; sleep 600")
}

// newTmux starts the server and its session "u", whose pane runs line,
// then runs the tmux commands in more in the same invocation.
func newTmux(t testing.TB, rows, cols int, line string, more ...string) *Tmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		MissingTool(t, "tmux")
	}
	tm := &Tmux{t: t, socket: fmt.Sprintf("pt%d-%d", os.Getpid(), tmuxServers.Add(1))}
	t.Cleanup(func() { exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	args := []string{"-f", "/dev/null", "start-server", ";", "set", "-g", "history-limit", "200000", ";",
		"new-session", "-d", "-s", "u", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), line}
	tm.Run(append(args, more...)...)
	return tm
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// Run runs a tmux command on this server and returns its output.
func (tm *Tmux) Run(args ...string) string {
	tm.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", tm.socket}, args...)...)
	env := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "TMUX" && k != "TMUX_PANE" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Screen is the pane's screen as plain text, one line a row.
func (tm *Tmux) Screen() string { return tm.Run("capture-pane", "-p", "-t", "u") }

// All is the pane's scrollback and screen without the trailing blank
// lines (capture-pane -p -S -).
func (tm *Tmux) All() []string {
	return strings.Split(strings.TrimRight(tm.Run("capture-pane", "-p", "-S", "-", "-t", "u"), "\n"), "\n")
}

// Keys types keys as tmux's send-keys names them ("Down", "C-a", "KP5").
func (tm *Tmux) Keys(keys ...string) {
	tm.t.Helper()
	tm.Run(append([]string{"send-keys", "-t", "u"}, keys...)...)
}

// WaitScreen waits up to 15 s for the screen to satisfy cond.
func (tm *Tmux) WaitScreen(what string, cond func(string) bool) string {
	tm.t.Helper()
	var s string
	WaitForState(tm.t, 15*time.Second, what, func() (bool, string) {
		s = tm.Screen()
		return cond(s), "screen:\n" + s
	})
	return s
}

// WaitText waits for the screen to contain s.
func (tm *Tmux) WaitText(s string) string {
	tm.t.Helper()
	return tm.WaitScreen(fmt.Sprintf("%q on the screen", s), func(scr string) bool { return strings.Contains(scr, s) })
}

// WaitAll waits until the pane and its scrollback hold exactly want.
func (tm *Tmux) WaitAll(want []string, what string) {
	tm.t.Helper()
	WaitForState(tm.t, 10*time.Second, what, func() (bool, string) {
		got := tm.All()
		return strings.Join(got, "\n") == strings.Join(want, "\n"),
			fmt.Sprintf("the terminal holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	})
}

// Exited reports whether the pane's command has ended, and its status
// (StartTmux panes only: the others keep a shell).
func (tm *Tmux) Exited() (bool, int) {
	b, err := os.ReadFile(tm.status)
	if err != nil {
		return false, 0
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil, code
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
	return strings.TrimSpace(tm.Run("display-message", "-p", "-t", "u", "#{pane_tty}"))
}
