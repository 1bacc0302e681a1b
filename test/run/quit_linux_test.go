package run

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// pty-run ignores the quit key (SIGQUIT) rather than catching it, which
// would cost it two threads at every start; an ignored signal stays
// ignored across exec, so this checks that it stops at pty-daemon and the
// session's command gets the default, as a terminal's Ctrl+\ expects.
func TestRunDetachedLeavesQuitToTheCommand(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "q", "--", "sh", "-c", "grep '^SigIgn' /proc/self/status; echo shown; exec sleep 100")
	scr := waitScreen(t, root, "q", "shown")
	m := regexp.MustCompile(`SigIgn:\s*([0-9a-f]+)`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no SigIgn line on the screen:\n%s", scr)
	}
	mask, err := strconv.ParseUint(m[1], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	const quit = 3
	if mask&(1<<(quit-1)) != 0 {
		t.Fatalf("the session's command starts with SIGQUIT ignored (SigIgn %s): Ctrl+\\ would not stop it", m[1])
	}
}
