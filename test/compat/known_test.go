package compat

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestKnownDifferences pins differences the compatibility tests found and
// we fixed (docs/compat.md): each subtest fails if one comes back.
func TestKnownDifferences(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	// The same program on both daemons, with the kitty keyboard pushed.
	kitty := []string{"sh", "-c", `printf 'READY\033[>1u\n'; exec cat`}
	oursMust(t, root, append([]string{"run", "-d", "--id", "go5", "--rows", "24", "--cols", "80", "--"}, kitty...)...)
	up.start(t, root, "up5", append([]string{"--"}, kitty...)...)
	for _, id := range []string{"go5", "up5"} {
		waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, []string{"READY"}, id)
	}

	t.Run("peek-ansi-trailing-blank-lines", func(t *testing.T) {
		// Upstream's daemon ends a coloured PEEK screen at its last
		// line (then moves the cursor back) and its peek prints the
		// payload as is, followed by its terminal reset.
		out, _, _ := strings.Cut(up.mustRun(t, root, "peek", "go5").Stdout, "\x1b[?1049l")
		if n := len(out) - len(strings.TrimRight(out, "\n")); n > 0 {
			t.Errorf("regression (docs/compat.md): upstream peek of our daemon prints %d newlines after the screen, of its own none (docs/compat.md)", n)
		}
	})

	stats := func(id string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(oursMust(t, root, "stats", "--json", id).Stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	field := func(m map[string]any, path ...string) any {
		var v any = m
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return v
	}
	our, their := stats("go5"), stats("up5")

	t.Run("stats-kitty-keyboard-flags", func(t *testing.T) {
		if r := up.run(t, root, "stats", "go5"); r.Code != 0 {
			t.Errorf("regression (docs/compat.md): kittyKeyboardFlags is %v here, %v upstream; upstream stats of our daemon fails: %s",
				field(our, "modes", "kittyKeyboardFlags"), field(their, "modes", "kittyKeyboardFlags"), strings.TrimSpace(r.Stderr))
		}
	})

	t.Run("stats-scrollback-used", func(t *testing.T) {
		a, b := field(our, "terminal", "scrollbackUsed"), field(their, "terminal", "scrollbackUsed")
		if a != b {
			t.Errorf("regression (docs/compat.md): scrollbackUsed is %v here, %v upstream for the same screen (upstream counts the viewport's rows too)", a, b)
		}
	})

	t.Run("stats-uptime-whole-seconds", func(t *testing.T) {
		if u, _ := field(our, "uptimeSeconds").(float64); u != math.Trunc(u) {
			t.Errorf("regression (docs/compat.md): uptimeSeconds is %v here, whole seconds upstream (its stats prints the fraction)", u)
		}
	})
}
