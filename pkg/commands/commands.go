// Package commands is the one registry of pty's built-in subcommands:
// their names, one-line summaries and aliases, and how a subcommand's
// program pty-<sub> is found. The dispatcher's help, shell completion
// and each command's --help all read it. It imports nothing of pty's, so
// the dispatcher stays small.
package commands

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// Command is one built-in subcommand.
type Command struct {
	Name    string // as typed after "pty"
	Summary string // one line, lower case, no final period
}

// Builtin lists the subcommands shipped with pty, in the order help
// shows them.
var Builtin = []Command{
	{"run", "start a command in a new session and attach to it"},
	{"attach", "attach to a session (Ctrl+\\ detaches)"},
	{"switch", "inside an attached session: show another session in its place"},
	{"peek", "print a session's screen, follow it read-only, or wait for text on it"},
	{"send", "type text or keys into a session"},
	{"list", "list sessions: running, exited and vanished (--json for scripts)"},
	{"stats", "show size, clients and resource use of sessions"},
	{"kill", "stop a session and everything it started; keep its record"},
	{"rm", "remove a stopped session's files"},
	{"restart", "start a session again from its stored settings"},
	{"tag", "show or change a session's tags"},
	{"tag-multi", "show or change the tags of several sessions"},
	{"rename", "show, set or clear a session's display name"},
	{"state", "get, set and delete keys of a session's JSON state"},
	{"emit", "append a user.* event to a session's event log"},
	{"events", "follow or print sessions' events"},
	{"metadata", "patch a session's display name and tags as JSON"},
	{"exec", "inside a session: make another command the session's command, and run it"},
	{"evidence", "read or remove the exit evidence of one exact session generation (JSON)"},
	{"recover", "bring back running sessions whose files (or whole root) were deleted"},
	{"gc", "reconcile the registry: respawn permanent sessions, reap dead ones"},
	{"up", "start the sessions a pty.toml declares"},
	{"down", "stop the sessions a pty.toml declares"},
	{"ui", "the interactive session picker (also: pty with no arguments)"},
	{"web", "watch (and with --write, drive) sessions from a browser"},
	{"remote", "run a command on the sessions of another host, over ssh (pty --remote HOST ...)"},
	{"remote-serve", "serve this host's sessions to a pty on another machine (over ssh)"},
	{"completions", "print a shell completion script (bash, zsh, fish)"},
}

// Alias is a short name of a command.
type Alias struct{ Name, Command string }

// Aliases are the short names of commands. They are a slice, not a map:
// the initializer of a package builds its map literals at every start of
// every program that links it (the dispatcher's, then the command's), and
// a map's hash seed is a program's first draw of random bytes.
var Aliases = []Alias{{"ls", "list"}, {"a", "attach"}, {"i", "ui"}, {"interactive", "ui"}, {"remove", "rm"}}

// Unalias is the command that name is an alias of, and whether it is one.
func Unalias(name string) (string, bool) {
	for _, a := range Aliases {
		if a.Name == name {
			return a.Command, true
		}
	}
	return "", false
}

// Lookup finds a built-in command by name or alias.
func Lookup(name string) (Command, bool) {
	if a, ok := Unalias(name); ok {
		name = a
	}
	for _, c := range Builtin {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Find looks for the program pty-<sub> beside the real pty executable
// (symlinks resolved), then on $PATH, the way git finds its commands.
func Find(sub string) (string, error) {
	if strings.ContainsAny(sub, "/\\") || sub == "" {
		return "", os.ErrNotExist
	}
	return Program("pty-" + sub)
}

// Program looks for the program name where Find looks: beside the real
// pty executable, then on $PATH. The picker runs pty and pty-attach so.
func Program(name string) (string, error) {
	if strings.ContainsAny(name, "/\\") || name == "" {
		return "", os.ErrNotExist
	}
	for _, dir := range dirs() {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// Exec replaces this process with the program name, found as Program
// finds it, given this process's arguments and environment: how a
// command's small program (pty-peek, pty-list, pty-run) hands a command
// line it does not serve to the whole command. It returns only when it
// could not.
func Exec(name string) error {
	path, err := Program(name)
	if err == nil {
		err = syscall.Exec(path, append([]string{path}, os.Args[1:]...), Environ())
	}
	return err
}

// OneProcEnv marks the GOMAXPROCS=1 that the dispatcher added to the
// environment of a one-processor start (OneProcEnviron), so that the
// command takes it out again before it starts another program.
const OneProcEnv = "PTY_ONE_PROC"

// oneProc are the commands whose common command line is one thread
// making a few blocking system calls (pty-peek's print of a screen),
// which scripts and status bars run in loops. With more than one
// processor a Go program's start makes threads for the runtime's
// background goroutines and wakes idle ones whenever a goroutine is
// readied, none of which such a command uses: the dispatcher starts it
// on one processor. Not pty-list, whose registry reads overlap on all
// of them, nor any command that starts other programs, which would
// inherit the setting (a session's command among them).
var oneProc = []string{"peek"}

// OneProcEnviron is env for the program of the command sub: with
// GOMAXPROCS=1 and OneProcEnv added when sub is one of oneProc and env
// does not choose GOMAXPROCS itself.
func OneProcEnviron(sub string, env []string) []string {
	if !slices.Contains(oneProc, sub) {
		return env
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") || strings.HasPrefix(kv, OneProcEnv+"=") {
			return env
		}
	}
	return append(slices.Clip(env), "GOMAXPROCS=1", OneProcEnv+"=1")
}

// Environ is this process's environment as a program it starts is to
// get it: without the GOMAXPROCS=1 of a one-processor start
// (OneProcEnviron), which was this process's alone.
func Environ() []string {
	env := os.Environ()
	if os.Getenv(OneProcEnv) != "1" {
		return env
	}
	return slices.DeleteFunc(env, func(kv string) bool {
		return kv == "GOMAXPROCS=1" || kv == OneProcEnv+"=1"
	})
}

// dirs are where programs are looked for: beside this executable, then
// $PATH.
func dirs() []string {
	var out []string
	if exe, err := os.Executable(); err == nil {
		// Linux's os.Executable reads /proc/self/exe, which the kernel
		// has resolved already: walking it again is a system call per
		// path element on every command's start.
		if runtime.GOOS != "linux" {
			if r, err := filepath.EvalSymlinks(exe); err == nil {
				exe = r
			}
		}
		out = append(out, filepath.Dir(exe))
	}
	return append(out, filepath.SplitList(os.Getenv("PATH"))...)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Internal are the pty-* programs that pty's own commands run, which are
// neither commands nor plugins: the session daemon, and the whole of
// pty peek, pty list and pty run, which pty-peek, pty-list and pty-run
// run for what they do not do themselves.
var Internal = []string{"daemon", "peek-full", "list-full", "run-attach"}

// Plugins lists the pty-* programs beside pty and on $PATH that are not
// built in, sorted (the Internal ones are not plugins).
func Plugins() []string {
	seen := map[string]bool{}
	for _, b := range Builtin {
		seen[b.Name] = true
	}
	for _, name := range Internal {
		seen[name] = true
	}
	var out []string
	for _, dir := range dirs() {
		if dir == "" {
			continue
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name, ok := strings.CutPrefix(e.Name(), "pty-")
			if !ok || name == "" || seen[name] || strings.HasPrefix(name, "daemon") {
				continue
			}
			if isExecutable(filepath.Join(dir, e.Name())) {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}
