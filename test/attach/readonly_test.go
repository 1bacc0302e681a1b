package attach

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// pty attach -R, in tmux as the user's terminal: the history and screen as
// any attach writes them (--history too), what the user types never
// reaches the session, a terminal of another size leaves the session's
// size alone, and one press of the detach key detaches.
func TestAttachReadOnly(t *testing.T) {
	root := testutil.Root(t)
	for _, tc := range []struct {
		name string
		args []string
		from int
	}{
		{"all", []string{"-R"}, 0},
		{"history 5", []string{"--read-only", "--history", "5"}, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ro := "ro" + tc.name[:3]
			testutil.MustRun(t, root, "run", "-d", "--id", ro, "--rows", "10", "--cols", "40", "--",
				"sh", "-c", colourLines(50)+"; exec cat")
			testutil.WaitFor(t, 10*time.Second, "the session's output", func() bool {
				return strings.Contains(testutil.Run(t, root, "peek", "--plain", ro).Stdout, "line 49")
			})
			u := testutil.StartUserTmux(t, root, 14, 60, nil, append(append([]string{"attach"}, tc.args...), ro)...)
			u.WaitAll(numbered(tc.from, 49), "after attach -R")
			testutil.WaitFor(t, 5*time.Second, "the watcher to connect", func() bool {
				return status(t, root, ro).Clients.ReadOnly == 1
			})
			u.Keys("typed-by-watcher", "Enter")
			if r, c := size(status(t, root, ro)); r != 10 || c != 40 {
				t.Errorf("a 14x60 read-only client sized the session to %dx%d, want 10x40", r, c)
			}
			u.Keys("C-\\")
			testutil.WaitFor(t, 10*time.Second, "[detached] after one press", func() bool {
				return strings.Contains(strings.Join(u.All(), "\n"), "[detached]")
			})
			// Its connection is gone, so whatever it sent has been read.
			testutil.WaitFor(t, 5*time.Second, "the watcher to leave", func() bool {
				return status(t, root, ro).Clients.ReadOnly == 0
			})
			mark := "mark-" + ro
			testutil.MustRun(t, root, "send", ro, mark+"\r")
			var screen string
			testutil.WaitFor(t, 10*time.Second, "the marker echoed", func() bool {
				screen = testutil.Run(t, root, "peek", "--plain", ro).Stdout
				return strings.Count(screen, mark) == 2
			})
			if strings.Contains(screen, "typed-by-watcher") {
				t.Errorf("a read-only client's keys reached the session:\n%s", screen)
			}
		})
	}
	if r := testutil.MustRun(t, root, "attach", "--help"); !strings.Contains(r.Stdout, `tmux's "attach -r"`) {
		t.Errorf("attach --help does not point tmux users to -R:\n%s", r.Stdout)
	}
	if r := testutil.Run(t, root, "attach", "-R", "-r", "roall"); r.Code != 2 && r.Code != 1 || !strings.Contains(r.Stderr, "-r and -R contradict") {
		t.Errorf("-R -r: %+v", r)
	}
}
