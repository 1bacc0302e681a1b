package ui

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// The picker names the chosen detach key, and an attach it starts
// detaches on that key, back to the picker; Ctrl+\ then goes to the
// program.
func TestPickerDetachKey(t *testing.T) {
	root := testutil.Root(t)
	id := runDetached(t, root, "--name", "gamma", "--", "sh", "-c", "stty raw -echo; echo GAMMA-READY; exec cat -v")
	tm := startTmux(t, root, "ui", "--detach-key", "ctrl+a")
	tm.waitFor("the picker with the chosen key", "gamma", "Ctrl+A in a session returns here")
	tm.keys("Enter")
	tm.waitScreen("gamma's screen", func(s string) bool {
		return strings.Contains(s, "GAMMA-READY") && !strings.Contains(s, "sessions")
	})
	tm.keys(`C-\`, "z")
	tm.waitFor("Ctrl+\\ to reach the program", `^\z`)
	tm.keys("C-a")
	tm.waitFor("the picker again", "Detached from "+id)
}
