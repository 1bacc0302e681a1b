package up

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestUpSuggestsFieldsByMeaning: a field written as another tool names it
// gets the pty.toml field that means the same, not the nearest spelling
// ("cmd" is one letter from "cwd").
func TestUpSuggestsFieldsByMeaning(t *testing.T) {
	root := testutil.Root(t)
	cases := []struct{ body, want string }{
		{"[sessions.web]\ncmd = \"ls\"\n", `pty.toml:2: sessions.web: unknown field "cmd" (did you mean "command"?)`},
		{"[sessions.web]\nexec = \"ls\"\n", `(did you mean "command"?)`},
		{"[sessions.web]\nrun = \"ls\"\n", `(did you mean "command"?)`},
		{"[sessions.web]\nprogram = \"ls\"\n", `(did you mean "command"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nworkdir = \"/\"\n", `unknown field "workdir" (did you mean "cwd"?)`},
		{"[sessions.web]\ncommand = \"ls\"\ndirectory = \"/\"\n", `(did you mean "cwd"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nname = \"Web\"\n", `unknown field "name" (did you mean "display_name"?)`},
		{"[sessions.web]\ncommand = \"ls\"\ndisplay-name = \"Web\"\n", `(did you mean "display_name"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nenvironment = { A = \"1\" }\n", `(did you mean "env"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nlabels = { a = \"1\" }\n", `(did you mean "tags"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nhistory = 100\n", `(did you mean "scrollback"?)`},
		{"[sessions.web]\ncommand = \"ls\"\nCommand = \"x\"\n", `unknown field "Command" (did you mean "command"?)`},
		// Spelling still counts.
		{"[sessions.web]\ncomand = \"ls\"\n", `(did you mean "command"?)`},
		// The top level.
		{"[services.web]\ncommand = \"ls\"\n", `pty.toml:1: unknown field "services" (did you mean [sessions.<name>]? a pty.toml has`},
		{"project = \"p\"\n[sessions.web]\ncommand = \"ls\"\n", `unknown field "project" (did you mean "prefix"?`},
		{"command = \"ls\"\n", `unknown field "command" (a session's fields go in its [sessions.<name>] table;`},
	}
	for _, c := range cases {
		r := in(t, root, project(t, c.body), "up")
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("up with\n%s\nexit %d stderr %q, want one line with %q", c.body, r.Code, r.Stderr, c.want)
		}
	}
}
