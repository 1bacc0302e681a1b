package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
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
