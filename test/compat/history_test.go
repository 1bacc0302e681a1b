package compat

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// The original's client, attaching to our daemon, gets the session's
// history in its terminal's scrollback as from its own daemon: the ATTACH
// it sends (the size alone) means all of it, and it writes the SCREEN
// payload as it comes.
func TestUpstreamAttachGetsHistory(t *testing.T) {
	up := needUpstream(t)
	root := testutil.Root(t)
	script := `i=0; while [ $i -lt 50 ]; do printf '\033[3%dmline %d\033[0m\n' $((i%7+1)) $i; i=$((i+1)); done; exec cat`
	var want []string
	for i := 0; i < 50; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
	}
	attach := func(id string) *testutil.Tmux {
		return testutil.StartUserTmuxCmd(t, 10, 40, up.env(t, root), up.node, up.cli, "attach", id)
	}

	oursMust(t, root, "run", "-d", "--id", "ours", "--rows", "10", "--cols", "40", "--", "sh", "-c", script)
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", "ours") }, want[41:], "our session")
	u := attach("ours")
	u.WaitAll(want, "the original's attach to our daemon")

	// And from its own daemon, the same.
	up.start(t, root, "theirs", "sh", "-c", script)
	testutil.WaitFor(t, 20*time.Second, "the original's session", func() bool {
		return strings.Contains(up.run(t, root, "peek", "--plain", "theirs").Stdout, "line 49")
	})
	v := attach("theirs")
	v.WaitAll(want, "the original's attach to its own daemon")
	up.run(t, root, "kill", "theirs")
}

// The original's peek -f of our daemon continues the live output on the
// line the program writes: our text baseline ends with the cursor move
// its serializer makes, and separates lines with CR LF.
func TestUpstreamFollowKeepsTheCursor(t *testing.T) {
	up := needUpstream(t)
	root := testutil.Root(t)
	oursMust(t, root, "run", "-d", "--id", "tick", "--rows", "10", "--cols", "40", "--",
		"sh", "-c", `echo "tick 0"; echo "tick 1"; exec cat`)
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", "tick") }, []string{"tick 0", "tick 1"}, "our session")
	u := testutil.StartUserTmuxCmd(t, 10, 40, up.env(t, root), up.node, up.cli, "peek", "-f", "tick")
	u.WaitAll([]string{"tick 0", "tick 1"}, "the original's peek -f")
	oursMust(t, root, "send", "tick", "tick 2")
	u.WaitAll([]string{"tick 0", "tick 1", "tick 2"}, "the original's peek -f after more output")
}
