// Command pty-run starts a command in a new session and attaches to it
// (or, with -d, leaves it running in the background). The work is in
// pkg/cmd/run.
package main

import (
	"context"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/run"
)

func main() {
	client.IgnoreQuitKey()
	c := cli.NewCommand("run",
		"pty run [-d] [-a] [-e] [--id ID] [--name LABEL] [--tag K=V]... [--env K=V]... [--unset-env K]... [--cwd DIR] [--rows N] [--cols N] [--scrollback N] [--permanent] [--detach-key KEY] -- CMD [ARGS...]",
		"Start a command in a new session and attach to it.")
	c.Long = `The command runs in a pseudo-terminal held by a small per-session daemon, so
it keeps running after you detach (Ctrl+\, or --detach-key) or close the terminal. Attach again
with "pty attach ID"; "pty peek ID" prints its screen.

Flags stop at "--" or at the first argument that is not a flag.

Without -d it attaches, which needs a terminal on standard input; from a
script, start it with -d and use "pty peek", "pty peek -f" and "pty send".

With -a and a session --id that has ended, it is started again the way
"pty restart" does it, with the record's settings where the command line
does not give them (gc's crash-loop bookkeeping is cleared).

When the command exits 0 the session's record is removed, unless it is tagged
keep (or strategy=permanent), or PTY_REAP_ON_EXIT is false/0/no/off. A failure
(a non-zero exit, or a signal it did not ask for) is kept, so "pty list",
"pty peek" and "pty events" show why it died, until "pty rm" or "pty gc"
(after --failed-ttl, default a day) removes it; -e, keep=false and
PTY_REAP_ON_EXIT set to anything else remove it at once. A session stopped by "pty kill" keeps its record until the next gc.

A command that cannot start (not found, not executable, a script whose
interpreter is missing, a working directory that cannot be entered, a NUL
byte in an argument or variable) is refused here: one line saying why, exit
1, nothing left behind. A start that fails after run returned (the file is
being written: text file busy) ends the session with exit status 126, the
reason on its screen.

The scrollback keeps the last N lines (--scrollback, else $PTY_SCROLLBACK,
else 10000), counted as the screen showed them: a line wider than the
terminal takes a line per row it wrapped into. Its memory is bounded too:
past 64 MiB the oldest lines are dropped, however few are left (at 80
columns of plain text that is over 600,000 lines; 1000-column lines of
colour change on every character fill it sooner). The setting is kept in
the record, so restart, run -a and gc's respawn keep it.

Inside a session (PTY_SESSION set) without -d the command runs directly in
the current terminal instead of nesting a session.`
	var o run.Options
	fs := c.Flags
	fs.BoolVar(&o.Detach, "d", false, "start detached: print the id and return once the session is up")
	fs.BoolVar(&o.Again, "a", false, "attach if the session --id is running; otherwise create it (reusing a dead record's settings)")
	fs.BoolVar(&o.Ephemeral, "e", false, "ephemeral: remove the record when the session ends, however it ends (unless tagged keep)")
	fs.StringVar(&o.ID, "id", "", "session id: letters, digits, '.', '_', '-', not starting with '.' or '-', without \".tmp.\" or a file suffix (.json, .events, .lock, ...) at the end; default: random")
	fs.StringVar(&o.Name, "name", "", "display name: one line, no control or invisible formatting characters (bidi, zero-width); default: derived from the directory and command")
	fs.BoolVar(&o.NoName, "no-display-name", false, "give the session no display name")
	fs.Var((*cli.StringList)(&o.Tags), "tag", "tag `K=V` (repeatable; keys up to 256 bytes, values up to 4096, at most 256 tags and 64 KiB in all)")
	fs.Var((*cli.StringList)(&o.Env), "env", "set `K=V` in the command's environment (repeatable; last wins)")
	fs.Var((*cli.StringList)(&o.Unset), "unset-env", "remove variable `K` from the command's environment (repeatable)")
	fs.BoolVar(&o.IsolateEnv, "isolate-env", false, "start from a minimal environment (PATH, HOME, USER, SHELL, TERM, LANG, LC_*, ...)")
	fs.StringVar(&o.Cwd, "cwd", "", "working directory (default: the current one)")
	c.Values("cwd", cli.ValueDir)
	fs.IntVar(&o.Rows, "rows", 0, "terminal rows, 1 to 1000 (default: this terminal's, else 24)")
	fs.IntVar(&o.Cols, "cols", 0, "terminal columns, 1 to 1000 (default: this terminal's, else 80)")
	fs.IntVar(&o.Scrollback, "scrollback", 0, "keep `N` lines of scrollback, 0 to 1000000, within 64 MiB of memory (default: $PTY_SCROLLBACK, else 10000)")
	fs.BoolVar(&o.Permanent, "permanent", false, "tag strategy=permanent: pty gc restarts it when it ends")
	fs.BoolVar(&o.CleanupOnCleanExit, "cleanup-on-clean-exit", false, "remove the record when the command exits 0, keep it otherwise")
	fs.BoolVar(&o.Force, "force", false, "inside a session, create a nested session anyway")
	o.DetachKey = c.DetachKeyFlag()
	o.Argv = c.ParseUntilPositional(os.Args[1:])
	o.IDSet, o.NameSet, o.RowsSet, o.ColsSet = c.Set("id"), c.Set("name"), c.Set("rows"), c.Set("cols")
	o.ScrollbackSet = c.Set("scrollback")
	cli.Exit(run.Run(context.Background(), o, cli.System(cli.Root())))
}
