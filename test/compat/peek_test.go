package compat

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// sgrOnly matches the only escape sequences peek may print: SGR.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestOurPeekOfUpstreamModes: the original's daemon ends its screen with
// the modes the program set (bracketed paste, application cursor keys and
// keypad, a hidden cursor); our peek prints the text and its colours, and
// never those.
func TestOurPeekOfUpstreamModes(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	const id = "modes"
	up.start(t, root, id, "--", "sh", "-c", `printf '\033[?2004h\033[?1h\033=\033[?25l\033[1;31mREADY\033[0m  set\n$ '; exec cat`)
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, []string{"READY  set", "$"}, "our peek of an upstream session")
	for _, args := range [][]string{{"peek", id}, {"peek", "--full", id}, {"peek", "--plain", id}, {"peek", "--plain", "--full", id}} {
		out := oursMust(t, root, args...).Stdout
		rest := sgrOnly.ReplaceAllString(out, "")
		if strings.Contains(args[1], "plain") {
			rest = out
		}
		if strings.ContainsFunc(rest, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }) {
			t.Errorf("pty %v printed control sequences: %q", args, out)
		}
		if !strings.Contains(out, "READY") || !strings.Contains(out, "set\n$") {
			t.Errorf("pty %v lost the text: %q", args, out)
		}
	}
	if out := oursMust(t, root, "peek", id).Stdout; !strings.Contains(out, "\x1b[") {
		t.Errorf("pty peek lost the colours: %q", out)
	}
}
