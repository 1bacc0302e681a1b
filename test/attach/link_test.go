package attach

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestReattachRedrawsLinks prints an OSC 8 hyperlink while no client is
// attached: what the next attach shows comes from the daemon's screen
// alone, and it must open and close the link around the linked text, as
// must pty peek's styled output.
func TestReattachRedrawsLinks(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ln", "--",
		"sh", "-c", `echo ready; read x; printf 'see \033]8;id=L;https://e.test/doc\033\\docs\033]8;;\033\\ end\n'; exec cat`)
	u := onTerminal(t, root, 24, 80, nil, "attach", "ln")
	u.WaitOutput(t, "ready")
	u.Write(t, "\x1c")
	u.WaitOutput(t, "[detached]")
	if code := u.Exit(t); code != 0 {
		t.Fatalf("detach exit code %d", code)
	}
	testutil.MustRun(t, root, "send", "ln", "go\r")
	testutil.WaitFor(t, 15*time.Second, "the link's line in pty peek", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "ln").Stdout, "docs end")
	})

	const open, closeLink = "\x1b]8;id=L;https://e.test/doc\x1b\\", "\x1b]8;;\x1b\\"
	if out := testutil.MustRun(t, root, "peek", "ln").Stdout; !strings.Contains(out, "see "+open) ||
		!strings.Contains(out, "docs"+closeLink) {
		t.Errorf("pty peek lacks the link around docs:\n%q", out)
	}

	v := onTerminal(t, root, 24, 80, nil, "attach", "ln")
	v.WaitOutput(t, "docs")
	testutil.WaitFor(t, 15*time.Second, "the reattach to draw the link", func() bool {
		out := v.Output()
		i := strings.Index(out, open)
		return i >= 0 && strings.Contains(out[i:], "docs"+closeLink)
	})
	v.Write(t, "\x1c")
	v.WaitOutput(t, "[detached]")
}
