package switchtest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// An attach whose screen is not the terminal it reads (here its output
// goes through a pipe to cat, which writes to the terminal) relays the
// daemon's frames itself, as every attach on macOS does: "pty switch B"
// typed in the session moves it too, with B's history and screen, and
// keys reach B.
func TestSwitchRelayingClient(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "la", 3)
	start(t, root, "lb", 40)
	pty := filepath.Join(testutil.BinDir(t), "pty")
	u := testutil.StartUserTmuxCmd(t, 24, 80, []string{"PTY_ROOT=" + root}, "sh", "-c", `"$0" attach "$1" | cat`, pty, "la")
	u.WaitText("la$")
	attached(t, root, "la", 1)

	u.Keys("pty switch lb", "Enter")
	u.WaitText("lb-line-40")
	u.WaitText("lb$")
	var got []string
	for _, l := range u.All() {
		if strings.HasPrefix(l, "lb-line-") {
			got = append(got, l)
		}
	}
	for i := 1; i <= 40; i++ {
		if len(got) != 40 || got[i-1] != fmt.Sprintf("lb-line-%d", i) {
			t.Fatalf("lb's history in the terminal, want lb-line-1..40 once each: %v\n%s", got, strings.Join(u.All(), "\n"))
		}
	}
	attached(t, root, "lb", 1)
	attached(t, root, "la", 0)
	if !status(t, root, "la").Process.Alive {
		t.Fatal("la ended on the switch")
	}
	u.Keys("echo typed-$((6*7))", "Enter")
	testutil.WaitFor(t, 10*time.Second, "the keys to reach lb", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "lb").Stdout, "typed-42")
	})
	u.WaitText("typed-42")
	if s := testutil.Run(t, root, "peek", "--plain", "la").Stdout; strings.Contains(s, "typed") {
		t.Errorf("keys typed after the switch reached la:\n%s", s)
	}
	u.Keys(`C-\`)
	u.WaitText("[detached]")
}
