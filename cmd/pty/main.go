// Command pty dispatches "pty <sub> ARGS" to the program pty-<sub>, found
// beside this executable first and then on $PATH, the way git finds its
// commands; third-party pty-* plugins work the same way. It replaces itself
// with that program (execve), so stdio, inherited descriptors, signals and
// the exit status belong to the subcommand with nothing in between. The
// one exception is the plainest peek of a running session, answered here
// to save a process start (see quickPeek).
package main

import (
	"fmt"
	"github.com/ptyorg/pty/internal/textdist"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// builtins lists the subcommands shipped with pty and their one-line
// summaries, in the order help shows them.
var builtins = []struct{ name, summary string }{
	{"run", "start a command in a new session (and attach to it)"},
	{"attach", "attach to a session (Ctrl+\\ detaches)"},
	{"peek", "print a session's screen, or follow it read-only"},
	{"send", "type text or keys into a session"},
	{"list", "list sessions (--json for scripts)"},
	{"stats", "show size, clients and resource use of sessions"},
	{"kill", "stop a session and everything it started; keep its record"},
	{"rm", "remove a finished session's files"},
	{"restart", "start a session again from its stored settings"},
	{"tag", "show or change a session's tags"},
	{"tag-multi", "show or change the tags of several sessions"},
	{"rename", "show, set or clear a session's display name"},
	{"state", "get, set and delete keys of a session's JSON state"},
	{"emit", "append a user.* event to a session's event log"},
	{"events", "follow or print a session's events"},
	{"metadata", "patch a session's display name and tags as JSON"},
	{"gc", "reconcile the registry: respawn permanent sessions, reap dead ones"},
	{"up", "start the sessions a pty.toml declares"},
	{"down", "stop the sessions a pty.toml declares"},
	{"ui", "the interactive session picker (also: pty with no arguments)"},
	{"web", "watch (and with --write, drive) sessions from a browser"},
	{"completions", "print a shell completion script (bash, zsh, fish)"},
}

var aliases = map[string]string{"ls": "list", "a": "attach", "i": "ui", "interactive": "ui", "remove": "rm"}

func main() {
	args := os.Args[1:]
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--root" || strings.HasPrefix(a, "--root="):
			var dir string
			if v, ok := strings.CutPrefix(a, "--root="); ok {
				dir, args = v, args[1:]
			} else if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				dir, args = args[1], args[2:]
			} else {
				fail("--root requires a directory, as in: pty --root ~/.local/state/pty list")
			}
			if dir == "" {
				fail("--root requires a directory, as in: pty --root ~/.local/state/pty list")
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				fail("--root %s: %v", dir, err)
			}
			if err := layout.CheckRootLen(abs); err != nil {
				fail("%v", err)
			}
			os.Setenv("PTY_ROOT", abs)
			continue
		case a == "--version" || a == "-v" || a == "-V" || a == "version":
			fmt.Println("pty " + version())
			return
		case a == "--help" || a == "-h" || a == "help":
			if len(args) > 1 {
				// "pty help run" is "pty run --help".
				dispatch(args[1], []string{"--help"})
			}
			usage(os.Stdout)
			return
		}
		break
	}
	if len(args) == 0 {
		if _, err := find("ui"); err == nil {
			dispatch("ui", nil)
		}
		usage(os.Stdout)
		return
	}
	dispatch(args[0], args[1:])
}

func dispatch(sub string, args []string) {
	if a, ok := aliases[sub]; ok {
		sub = a
	}
	if strings.HasPrefix(sub, "-") {
		fail("unknown flag %q: global flags are --root DIR, --help and --version (see 'pty help')", sub)
	}
	if sub == "peek" {
		quickPeek(args)
	}
	path, err := find(sub)
	if err != nil {
		msg := fmt.Sprintf("pty: unknown command %q", sub)
		if s := suggest(sub); len(s) > 0 {
			msg += "\n\nDid you mean one of these?\n\t" + strings.Join(s, "\n\t")
		}
		fmt.Fprintln(os.Stderr, msg+"\n\nRun 'pty help' for the list of commands.")
		os.Exit(1)
	}
	argv := append([]string{"pty-" + sub}, args...)
	err = syscall.Exec(path, argv, os.Environ())
	fail("run %s: %v", path, err)
}

// find looks for pty-<sub> beside the real pty executable (symlinks
// resolved), then on $PATH.
func find(sub string) (string, error) {
	if strings.ContainsAny(sub, "/\\") || sub == "" {
		return "", os.ErrNotExist
	}
	name := "pty-" + sub
	if dir := selfDir(); dir != "" {
		p := filepath.Join(dir, name)
		if isExecutable(p) {
			return p, nil
		}
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
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

func selfDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Dir(exe)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// plugins lists pty-* programs beside pty and on PATH that are not built in.
func plugins() []string {
	seen := map[string]bool{}
	for _, b := range builtins {
		seen[b.name] = true
	}
	var out []string
	dirs := append([]string{selfDir()}, filepath.SplitList(os.Getenv("PATH"))...)
	for _, dir := range dirs {
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
	sort.Strings(out)
	return out
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `pty keeps terminal sessions running in the background: start one, detach,
and attach again later from any terminal.

Usage: pty [--root DIR] <command> [args...]
       pty                    open the session picker

Commands:
`)
	for _, b := range builtins {
		fmt.Fprintf(w, "  %-12s %s\n", b.name, b.summary)
	}
	fmt.Fprintf(w, "\nAliases: ls = list, a = attach, i = ui, remove = rm\n")
	if p := plugins(); len(p) > 0 {
		fmt.Fprintf(w, "\nPlugins (pty-* on PATH):\n")
		for _, name := range p {
			fmt.Fprintf(w, "  %s\n", name)
		}
	}
	fmt.Fprintf(w, `
Global flags:
  --root DIR   use DIR as the session registry (sets PTY_ROOT)
  --version    print the version and the commit it was built from

Run 'pty <command> --help' for a command's flags.
`)
}

// version is the module version and VCS revision stamped by the Go
// toolchain at build time; there is no ldflags step to forget.
func version() string {
	v, commit, dirty := "(devel)", "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
				if len(commit) > 12 {
					commit = commit[:12]
				}
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if dirty {
		commit += "-dirty"
	}
	return fmt.Sprintf("%s (commit %s)", v, commit)
}

// suggest returns commands within a small edit distance of sub, or that
// start with it.
func suggest(sub string) []string {
	var out []string
	names := []string{}
	for _, b := range builtins {
		names = append(names, b.name)
	}
	for a := range aliases {
		names = append(names, a)
	}
	names = append(names, plugins()...)
	sort.Strings(names)
	for _, n := range names {
		if len(n) < 3 {
			continue // short aliases match everything loosely
		}
		if textdist.Levenshtein(sub, n) <= max(1, len(sub)/3) || (len(sub) >= 2 && strings.HasPrefix(n, sub)) {
			out = append(out, n)
		}
	}
	return out
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pty: "+format+"\n", args...)
	os.Exit(1)
}

// quickPeek answers the plainest "pty peek [--plain] [--full] ID" of a
// running session in this process and exits. It is the one exception to
// exec'ing the subcommand: scripts and status bars run peek in loops, and
// a second Go process start is most of its cost (about 1.2 ms of 3.5 ms
// here, when tmux capture-pane takes 1.8 ms). Anything else, including
// any failure, returns so that pty-peek runs as usual and gives the
// answer or the error.
func quickPeek(args []string) {
	var flags byte
	ref := ""
	for _, a := range args {
		switch {
		case a == "--plain":
			flags |= proto.PeekPlain
		case a == "--full":
			flags |= proto.PeekFull
		case ref == "" && !strings.HasPrefix(a, "-"):
			ref = a
		default:
			return
		}
	}
	r, err := layout.ResolveRoot(os.Getenv)
	if err != nil || len(r.Warnings) > 0 || ref == "" {
		return
	}
	b, err := client.QuickPeek(r.Dir, ref, flags, 10*time.Second)
	if err != nil {
		return
	}
	if client.PrintScreen(os.Stdout, b, flags&proto.PeekPlain != 0) != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
