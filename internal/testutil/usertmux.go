package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// UserTmux is tmux standing in for the user's terminal: its one pane runs
// a pty command, and capture-pane reads what the pane shows and its
// scrollback, as the user would scroll through it.
type UserTmux struct {
	t    testing.TB
	sock string
}

var tmuxServers atomic.Int32

// StartUserTmux runs "pty args..." against root in a rows x cols tmux
// pane (a server of its own, with a history of 50,000 lines), with env
// added to the command's environment. The pane stays after the command
// ends, so its last words can be read.
func StartUserTmux(t testing.TB, root string, rows, cols int, env []string, args ...string) *UserTmux {
	t.Helper()
	env = append([]string{"PTY_ROOT=" + root}, env...)
	return StartUserTmuxCmd(t, rows, cols, env, append([]string{filepath.Join(BinDir(t), "pty")}, args...)...)
}

// StartUserTmuxCmd is StartUserTmux for any command (argv).
func StartUserTmuxCmd(t testing.TB, rows, cols int, env []string, argv ...string) *UserTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		MissingTool(t, "tmux")
	}
	u := &UserTmux{t: t, sock: fmt.Sprintf("pu%d-%d", os.Getpid(), tmuxServers.Add(1))}
	shell := append(append([]string{"env", "PTY_SESSION=", "LANG=C.UTF-8"}, env...), argv...)
	for i, a := range shell {
		shell[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	u.Run("-f", "/dev/null", "start-server", ";", "set", "-g", "history-limit", "50000", ";",
		"new-session", "-d", "-s", "u", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows),
		strings.Join(shell, " ")+"; sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-L", u.sock, "kill-server").Run() })
	return u
}

// Run runs a tmux command on this server and returns its output.
func (u *UserTmux) Run(args ...string) string {
	u.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", u.sock}, args...)...)
	env := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "TMUX" && k != "TMUX_PANE" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		u.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// All is the pane's scrollback and screen without the trailing blank
// lines (capture-pane -p -S -).
func (u *UserTmux) All() []string {
	return strings.Split(strings.TrimRight(u.Run("capture-pane", "-p", "-S", "-", "-t", "u"), "\n"), "\n")
}

// WaitAll waits until the pane and its scrollback hold exactly want.
func (u *UserTmux) WaitAll(want []string, what string) {
	u.t.Helper()
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = u.All()
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("%s: the terminal holds\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Keys types keys into the pane (tmux send-keys syntax).
func (u *UserTmux) Keys(keys ...string) {
	u.t.Helper()
	u.Run(append([]string{"send-keys", "-t", "u"}, keys...)...)
}
