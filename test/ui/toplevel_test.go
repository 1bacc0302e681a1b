package ui

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestPickerFromTopLevelFlags: as in the original, the picker's flags
// given to pty with no command open the picker with them.
func TestPickerFromTopLevelFlags(t *testing.T) {
	root := testutil.Root(t)
	other := runDetached(t, root, "--name", "other", "--", "sleep", "300")
	tm := startTmux(t, root, "--filter-tag", "team=blue", "--preselect-new")
	tm.waitFor("the picker scoped to the tag", "team=blue", "0 of 0 sessions", "+ Create new session...")
	if strings.Contains(tm.screen(), other) {
		t.Fatal("a session without the tag is listed")
	}
}
