package attach

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// A flood in an attached session (redrawn, not forwarded) leaves every
// line the session kept in the terminal's scrollback, once and in order,
// in colour, and a marker for those it did not keep.
func TestAttachFloodKeepsScrollback(t *testing.T) {
	for _, tc := range []struct{ name, cmd string }{
		{"plain", testutil.FloodPlain},
		{"colour", testutil.FloodColour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.Root(t)
			testutil.MustRun(t, root, "run", "-d", "--id", "f", "--rows", "40", "--cols", "120", "--",
				"env", "PS1=$ ", "sh")
			u := testutil.StartUserTmux(t, root, 40, 120, nil, "attach", "f")
			u.WaitText("$")
			u.Keys(tc.cmd+"; echo DO''NE", "Enter")
			testutil.WaitFor(t, 60*time.Second, "the end of the flood", func() bool {
				for _, l := range u.All() {
					if l == "DONE" {
						return true
					}
				}
				return false
			})
			// The catch-up comes a redraw after the prompt's.
			all := testutil.WaitFloodScrollback(u, "DONE\n$")
			testutil.CheckFlood(t, all, 100000)
			if tc.name == "colour" {
				ansi := u.Run("capture-pane", "-p", "-e", "-S", "-", "-t", "u")
				for _, v := range []int{95000, 99999} {
					want := fmt.Sprintf("\x1b[3%dm%d\x1b[39m %s\n", v%7+1, v, testutil.FloodPad)
					if !strings.Contains(ansi, want) {
						t.Fatalf("the scrollback lost its colours: no %q", want)
					}
				}
			}
		})
	}
}
