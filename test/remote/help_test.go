package remote

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// The commands that run here over a route say so in their help.
func TestRemoteInHelp(t *testing.T) {
	root := testutil.Root(t)
	for _, cmd := range []string{"peek", "send", "attach"} {
		r := testutil.Run(t, root, cmd, "--help")
		out := r.Stdout + r.Stderr
		for _, want := range []string{"--remote HOST", "PTY_REMOTE", "docs/remote.md"} {
			if !strings.Contains(out, want) {
				t.Errorf("pty %s --help lacks %q:\n%s", cmd, want, out)
			}
		}
	}
}
