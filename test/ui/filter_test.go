package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestPickerFilterMatchesWithinAText types "api" among sessions whose
// directory, command and tags hold an a, a p and an i between them: only
// the session called "API server" is kept, as in the original picker.
// Then "web" ranks the id's match over the command's over a tag's, and the
// selected row carries ▸.
func TestPickerFilterMatchesWithinAText(t *testing.T) {
	root := testutil.Root(t)
	base, err := os.MkdirTemp("", "pf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := func(p string) string {
		d := filepath.Join(base, p)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	// sh -c 'exec sleep 300' NAME... shows its words as the command.
	sleeper := func(words ...string) []string {
		return append([]string{"--", "sh", "-c", "exec sleep 300"}, words...)
	}
	run := func(args ...string) { runDetached(t, root, args...) }
	run(append([]string{"--id", "web1", "--name", "API server", "--cwd", dir("src/shop")}, sleeper("node")...)...)
	run(append([]string{"--id", "db1", "--name", "postgres", "--cwd", dir("data/pg"), "--tag", "tier=primary"}, sleeper("postgres", "-D", "pgdata")...)...)
	run(append([]string{"--id", "logs", "--name", "tail", "--cwd", dir("var/app"), "--tag", "env=ci"}, sleeper("tail", "-f", "log/prod.log")...)...)
	run(append([]string{"--id", "ui1", "--name", "vite", "--cwd", dir("src/app-web"), "--tag", "team=infra"}, sleeper("npm")...)...)
	run(append([]string{"--id", "sh1", "--name", "shell", "--cwd", base}, sleeper("bash")...)...)

	tm := startTmux(t, root)
	tm.waitFor("the sessions", "5 of 5 sessions")
	tm.text("api")
	tm.waitScreen("only API server kept", func(s string) bool {
		return strings.Contains(s, "1 of 5 sessions") && strings.Contains(s, "API server")
	})

	// "web": web1 by its id, then a command with cobweb in it, then a
	// tag, then ui1's directory (app-web), although the list (by display
	// name) has them in another order.
	run(append([]string{"--id", "cmd1", "--name", "bundler"}, sleeper("cobweb")...)...)
	run(append([]string{"--id", "tag1", "--name", "assets", "--tag", "site=web"}, sleeper()...)...)
	tm.keys("C-u")
	tm.text("web")
	var rows []string
	tm.waitScreen("four matches for web", func(s string) bool {
		rows = rows[:0]
		for _, l := range strings.Split(s, "\n") {
			for _, id := range []string{"web1", "cmd1", "tag1", "ui1"} {
				if strings.Contains(l, " "+id+" ") {
					rows = append(rows, id)
				}
			}
		}
		return strings.Contains(s, "4 of 7 sessions")
	})
	if strings.Join(rows, " ") != "web1 cmd1 tag1 ui1" {
		t.Errorf("rows for web: %q, want web1 (id) cmd1 (command) tag1 (tag) ui1 (directory)", rows)
	}
	tm.waitScreen("the selected row marked", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "▸ ● web1 ") {
				return true
			}
		}
		return false
	})
}
