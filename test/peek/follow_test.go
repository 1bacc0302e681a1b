package peek

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// peek -f draws the baseline, then the live output where the program's
// cursor was: a session printing a line at a time shows each on its own
// line, in a terminal in raw mode.
func TestPeekFollowContinuesOnTheRightLine(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "tick", "--rows", "12", "--cols", "40", "--",
		"sh", "-c", `i=0; while [ $i -lt 8 ]; do echo "tick $i"; i=$((i+1)); sleep 0.3; done; exec cat`)
	testutil.WaitFor(t, 10*time.Second, "tick 2", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "tick").Stdout, "tick 2")
	})
	u := testutil.StartUserTmux(t, root, 12, 40, nil, "peek", "-f", "tick")
	var want []string
	for i := 0; i < 8; i++ {
		want = append(want, fmt.Sprintf("tick %d", i))
	}
	u.WaitAll(want, "peek -f after the last tick")

	// The cursor goes back up too: a program that moves it up and
	// rewrites a line.
	testutil.MustRun(t, root, "send", "tick", "x")
	u.WaitAll(append(want, "x"), "the echo of a key")
	testutil.MustRun(t, root, "run", "-d", "--id", "up", "--rows", "12", "--cols", "40", "--",
		"sh", "-c", `printf 'one\ntwo\nthree\033[1A\rTWO'; sleep 1; printf 'X\n'; exec cat`)
	testutil.WaitFor(t, 10*time.Second, "TWO", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "up").Stdout, "TWO")
	})
	v := testutil.StartUserTmux(t, root, 12, 40, nil, "peek", "-f", "up")
	v.WaitAll([]string{"one", "TWOX", "three"}, "peek -f after the rewrite")
}

// peek -f goes on drawing the live output as the program wrote it: in the
// program's pen and character set, after a pending wrap at the last column,
// within its scroll region, with the cursor hidden if the program hid it. tmux running the program
// itself, at the same size, is the oracle.
func TestPeekFollowKeepsThePenAndPendingWrap(t *testing.T) {
	root := testutil.Root(t)
	gate := filepath.Join(t.TempDir(), "go")
	// The first line is exactly as wide as the screen: the cursor waits
	// at its last column. The rest is printed once the gate file exists.
	// The last row is outside the scroll region: the lines printed at the
	// end scroll the others past it.
	prog := `printf '\033[6;1Hbottom\033[1;5r\033[?25l\033[1;31;44mabcdefghijklmnopqrst\033(0'; ` +
		`while [ ! -e ` + gate + ` ]; do sleep 0.05; done; ` +
		`printf 'qqx\033(B\033[4;32m under\033[0m one\n2\n3\n4\ndone'; exec sleep 600`
	testutil.MustRun(t, root, "run", "-d", "--id", "pen", "--rows", "6", "--cols", "20", "--", "sh", "-c", prog)
	testutil.WaitFor(t, 10*time.Second, "the first line", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "pen").Stdout, "abcdefghijklmnopqrst")
	})
	u := testutil.StartUserTmux(t, root, 6, 20, nil, "peek", "-f", "pen")
	u.WaitText("abcdefghijklmnopqrst")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	u.WaitText("done")

	oracle := testutil.StartUserTmuxCmd(t, 6, 20, nil, "sh", "-c", prog)
	oracle.WaitText("done")
	capture := func(tm *testutil.Tmux) string {
		return tm.Run("capture-pane", "-p", "-e", "-t", "u") + "cursor " + tm.Run("display", "-p", "-t", "u", "#{cursor_flag} #{cursor_x},#{cursor_y}")
	}
	if got, want := capture(u), capture(oracle); got != want {
		t.Errorf("peek -f shows\n%q\nthe program itself in tmux\n%q", got, want)
	}
}

// peek -f ended by a signal restores the terminal as attach does (the
// relayed path: a read-only follower never hands the daemon the terminal).
func TestPeekFollowEndedBySignalRestoresTheTerminal(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "sig", "--", "sh", "-c", `printf 'ready\033(0\033[?7l'; exec cat`)
	u := testutil.StartTerminal(t, testutil.Command(t, root, "", "peek", "-f", "sig"), 24, 80)
	u.WaitOutput(t, "ready")
	if err := u.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	u.WaitOutput(t, "[terminated]")
	if code := u.Exit(t); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit status %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	testutil.AssertCookedTerminal(t, u)
	if !strings.Contains(u.Output(), proto.ResetModes) {
		t.Errorf("the terminal was not reset: %q", u.Output())
	}
}
