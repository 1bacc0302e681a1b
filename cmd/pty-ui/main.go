// Command pty-ui is the interactive session picker, what `pty` opens when
// run with no arguments (also `pty i`, `pty ui`).
package main

import (
	"fmt"
	"github.com/ptyorg/pty/pkg/client"
	"os"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/picker"
)

func main() {
	c := cli.NewCommand("ui", "pty ui [--filter-tag K=V]... [--preselect-new] [--force] [--detach-key KEY]   (or just: pty)")
	c.Long = `Lists sessions (refreshed every second) with a filter line: type to narrow
the list; letters match in order with gaps allowed, across id, display name,
directory, command and tags. Enter attaches to the selected session; Ctrl+\
(or the --detach-key, or PTY_DETACH_KEY) detaches and comes back here. Selecting a session that exited offers to
restart it. "+ Create new session..." asks for a directory and a command
(default: $SHELL in the current directory) and attaches to the new session.

Keys: up/down (Ctrl+P/Ctrl+N) select; left/right, Home/End, Ctrl+A/Ctrl+E,
Alt+B/Alt+F (Alt+Left/Right) move by word; Backspace/Delete, Ctrl+U (to the
start), Ctrl+K (to the end), Ctrl+W (previous word) edit; Esc clears the
filter, and on an empty filter Esc or q quits.

--filter-tag scopes the list to sessions with that tag, and new sessions get
it. The picker refuses to run inside a session (PTY_SESSION is set) unless
--force is given: detach with Ctrl+\ first.`
	var tags cli.StringList
	c.Flags.Var(&tags, "filter-tag", "only sessions with tag `K=V`; new sessions get it (repeatable)")
	preselectNew := c.Flags.Bool("preselect-new", false, "start with \"+ Create new session...\" selected")
	force := c.Flags.Bool("force", false, "run even inside a pty session")
	detachKey := c.DetachKeyFlag()
	if rest := c.Parse(os.Args[1:]); len(rest) > 0 {
		cli.Fatalf("ui takes no arguments, got %q (to attach directly: pty attach %s)", rest[0], rest[0])
	}
	filter := map[string]string{}
	for _, kv := range tags {
		k, v, err := cli.ParseKV("--filter-tag", kv)
		cli.Check(err)
		filter[k] = v
	}
	if s := os.Getenv("PTY_SESSION"); s != "" && !*force {
		cli.Fatalf("already inside pty session %q: the picker would nest. Detach first%s, or pass --force", s, detachKey().With())
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		cli.Fatalf("the picker needs a terminal: in scripts use 'pty list', 'pty peek ID' and 'pty send ID ...'")
	}
	// Ctrl+\ is the detach key: one pressed while the terminal is between
	// the picker and an attach must not kill the picker with SIGQUIT.
	client.IgnoreQuitKey()
	root := cli.EnsureRoot()
	cwd, err := os.Getwd()
	if err != nil {
		cwd = os.Getenv("HOME")
	}
	home, _ := os.UserHomeDir()
	m := picker.New(picker.Options{
		Root:         root,
		FilterTags:   filter,
		PreselectNew: *preselectNew,
		Cwd:          cwd,
		Shell:        os.Getenv("SHELL"),
		Home:         home,
		DetachKey:    detachKey(),
	})
	if _, err := tea.NewProgram(m, tea.WithAltScreen()).Run(); err != nil {
		fmt.Fprintf(os.Stderr, "pty: picker: %v\n", err)
		os.Exit(1)
	}
}
