package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// userTmux is tmux standing in for the user's terminal: its pane runs a
// pty command, and capture-pane reads the pane's scrollback as the user
// would scroll through it.
type userTmux struct {
	t    *testing.T
	sock string
}

var tmuxServers int

func startUserTmux(t *testing.T, root string, rows, cols int, env []string, args ...string) *userTmux {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testutil.MissingTool(t, "tmux")
	}
	tmuxServers++
	u := &userTmux{t: t, sock: fmt.Sprintf("pa%s-%d", filepath.Base(root), tmuxServers)}
	shell := []string{"env", "PTY_ROOT=" + root, "PTY_SESSION=", "LANG=C.UTF-8"}
	shell = append(append(shell, env...), filepath.Join(testutil.BinDir(t), "pty"))
	shell = append(shell, args...)
	for i, a := range shell {
		shell[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	u.run("-f", "/dev/null", "start-server", ";", "set", "-g", "history-limit", "50000", ";",
		"new-session", "-d", "-s", "u", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows),
		strings.Join(shell, " ")+"; sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-L", u.sock, "kill-server").Run() })
	return u
}

func (u *userTmux) run(args ...string) string {
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

// all is the pane's scrollback and screen (of the main screen, with
// alt), without the trailing blank lines.
func (u *userTmux) all(alt bool) []string {
	args := []string{"capture-pane", "-p", "-S", "-", "-t", "u"}
	if alt {
		args = append(args, "-a", "-q")
	}
	return strings.Split(strings.TrimRight(u.run(args...), "\n"), "\n")
}

// waitAll waits until the pane holds exactly want.
func (u *userTmux) waitAll(alt bool, want []string, what string) {
	u.t.Helper()
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = u.all(alt)
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("%s: the terminal holds\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func numbered(from, to int) []string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, fmt.Sprintf("line %d", i))
	}
	return l
}

// colourLines is a shell loop printing "line 0".."line N-1", each in
// its own colour.
func colourLines(n int) string {
	return fmt.Sprintf(`i=0; while [ $i -lt %d ]; do printf '\033[3%%dmline %%d\033[0m\n' $((i%%7+1)) $i; i=$((i+1)); done`, n)
}

// pty attach writes the session's scrollback into the terminal's own, in
// order and in colour, and then the screen; --history and
// PTY_ATTACH_HISTORY limit it.
func TestAttachWritesHistoryIntoTerminal(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "h", "--rows", "10", "--cols", "40", "--",
		"sh", "-c", colourLines(50)+"; exec cat")
	testutil.WaitFor(t, 10*time.Second, "the session's output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "h").Stdout, "line 49")
	})
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		from int
	}{
		{"all", nil, nil, 0},
		{"history 5", nil, []string{"--history", "5"}, 36},
		{"history 0", nil, []string{"--history", "0"}, 41},
		{"env 3", []string{"PTY_ATTACH_HISTORY=3"}, nil, 38},
		{"flag over env", []string{"PTY_ATTACH_HISTORY=3"}, []string{"--history", "all"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := startUserTmux(t, root, 10, 40, tc.env, append(append([]string{"attach"}, tc.args...), "h")...)
			u.waitAll(false, numbered(tc.from, 49), "after attach")
			if tc.from == 0 {
				// In colour: capture-pane -e shows each line's.
				ansi := u.run("capture-pane", "-p", "-e", "-S", "-", "-t", "u")
				for _, want := range []string{"\x1b[32mline 1\n", "\x1b[37mline 6\n", "\x1b[31mline 7\n"} {
					if !strings.Contains(ansi, want) {
						t.Fatalf("the history lost its colours: no %q in\n%q", want, ansi)
					}
				}
			}
			u.run("send-keys", "-t", "u", "C-\\")
			testutil.WaitFor(t, 10*time.Second, "[detached]", func() bool {
				return strings.Contains(strings.Join(u.all(false), "\n"), "[detached]")
			})
		})
	}
}

// A session on the alternate screen: its history goes to the main
// screen's scrollback, then the alternate screen is drawn; when the
// program leaves it, the terminal's main screen has everything in order.
func TestAttachHistoryUnderAlternateScreen(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "alt", "--rows", "10", "--cols", "40", "--",
		"sh", "-c", colourLines(30)+`; printf '\033[?1049h\033[HALT SCREEN'; read x; printf '\033[?1049l'; exec cat`)
	testutil.WaitFor(t, 10*time.Second, "the alternate screen", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "alt").Stdout, "ALT SCREEN")
	})
	u := startUserTmux(t, root, 10, 40, nil, "attach", "alt")
	// tmux keeps one history for both screens.
	u.waitAll(false, append(numbered(0, 20), "ALT SCREEN"), "the alternate screen")
	u.run("send-keys", "-t", "u", "Enter")
	u.waitAll(false, numbered(0, 29), "the main screen after leaving the alternate one")
}
