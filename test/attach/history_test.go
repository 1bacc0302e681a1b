package attach

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

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
			u := testutil.StartUserTmux(t, root, 10, 40, tc.env, append(append([]string{"attach"}, tc.args...), "h")...)
			u.WaitAll(numbered(tc.from, 49), "after attach")
			if tc.from == 0 {
				// In colour: capture-pane -e shows each line's.
				ansi := u.Run("capture-pane", "-p", "-e", "-S", "-", "-t", "u")
				for _, want := range []string{"\x1b[32mline 1\n", "\x1b[37mline 6\n", "\x1b[31mline 7\n"} {
					if !strings.Contains(ansi, want) {
						t.Fatalf("the history lost its colours: no %q in\n%q", want, ansi)
					}
				}
			}
			u.Keys("C-\\")
			testutil.WaitFor(t, 10*time.Second, "[detached]", func() bool {
				return strings.Contains(strings.Join(u.All(), "\n"), "[detached]")
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
	u := testutil.StartUserTmux(t, root, 10, 40, nil, "attach", "alt")
	// tmux keeps one history for both screens.
	u.WaitAll(append(numbered(0, 20), "ALT SCREEN"), "the alternate screen")
	u.Keys("Enter")
	u.WaitAll(numbered(0, 29), "the main screen after leaving the alternate one")
}
