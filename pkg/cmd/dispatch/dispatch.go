// Package dispatch is the pty command itself: it forwards "pty <sub>
// ARGS" to the program pty-<sub> (commands.Find), and answers only help
// and version. It replaces itself with that program (execve), so stdio,
// inherited descriptors, signals and the exit status belong to the
// subcommand with nothing in between; third-party pty-* plugins work the
// same way.
//
// Every pty command starts here, so it links little: no fmt, reflection or
// runtime/debug, whose start-up each command would pay twice (here and in
// pty-<sub>).
package dispatch

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ptyorg/pty/internal/buildstamp"
	"github.com/ptyorg/pty/internal/textdist"
	"github.com/ptyorg/pty/pkg/commands"
)

// Options are the dispatcher's command line and environment.
type Options struct {
	Args []string // after "pty"
	Env  []string // passed on to the subcommand
}

// IO is where help goes, and Exec how a subcommand replaces this
// process (syscall.Exec; it returns only on failure).
type IO struct {
	Out, Err io.Writer
	Exec     func(path string, argv, env []string) error
}

// Run dispatches and returns the exit status when it does not exec.
func Run(o Options, io IO) int {
	args := o.Args
	env := o.Env
	host, hostSet := "", false
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--remote" || strings.HasPrefix(a, "--remote="):
			if v, ok := strings.CutPrefix(a, "--remote="); ok {
				host, args = v, args[1:]
			} else if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				host, args = args[1], args[2:]
			} else {
				return fail(io, "--remote requires a host, as in: pty --remote HOST list (an ssh destination or a name from remotes.toml)")
			}
			hostSet = true
			continue
		case a == "--root" || strings.HasPrefix(a, "--root="):
			var dir string
			if v, ok := strings.CutPrefix(a, "--root="); ok {
				dir, args = v, args[1:]
			} else if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
				dir, args = args[1], args[2:]
			}
			if dir == "" {
				return fail(io, "--root requires a directory, as in: pty --root ~/.local/state/pty list")
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return fail(io, "--root "+dir+": "+err.Error())
			}
			env = setenv(env, "PTY_ROOT", abs)
			continue
		case a == "--version" || a == "-v" || a == "-V" || a == "version":
			io.Out.Write([]byte("pty " + version() + "\n"))
			return 0
		case pickerFlag(a):
			// "pty --filter-tag role=web" opens the picker, as in
			// the original: the flags are the picker's.
			return dispatch(io, env, "ui", args)
		case a == "--help" || a == "-h" || a == "help":
			if len(args) > 1 {
				// "pty help run" is "pty run --help".
				return dispatch(io, env, args[1], []string{"--help"})
			}
			usage(io.Out)
			return 0
		}
		break
	}
	if len(args) == 0 {
		if hostSet {
			return dispatch(io, env, "remote", []string{host})
		}
		if _, err := commands.Find("ui"); err == nil {
			return dispatch(io, env, "ui", nil)
		}
		usage(io.Out)
		return 0
	}
	ra, msg := peelRemote(host, hostSet, args[0], args[1:], env)
	if msg != "" {
		return fail(io, msg)
	}
	if ra != nil {
		return dispatch(io, env, "remote", ra)
	}
	return dispatch(io, env, args[0], args[1:])
}

// pickerFlag reports whether a is one of the picker's flags (pty ui),
// which the original takes with no command.
func pickerFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return strings.HasPrefix(a, "--") && (name == "preselect-new" || name == "filter-tag" || name == "force" || name == "detach-key")
}

func dispatch(io IO, env []string, sub string, args []string) int {
	if a, ok := commands.Unalias(sub); ok {
		sub = a
	}
	if strings.HasPrefix(sub, "-") {
		return fail(io, "unknown flag "+strconv.Quote(sub)+": global flags are --root DIR, --remote HOST, --help and --version (see 'pty help')")
	}
	path, err := commands.Find(sub)
	if err != nil {
		if msg, ok := retired[sub]; ok {
			return fail(io, msg)
		}
		msg := "pty: unknown command " + strconv.Quote(sub)
		if s := suggest(sub); len(s) > 0 {
			msg += "\n\nDid you mean one of these?\n\t" + strings.Join(s, "\n\t")
		}
		io.Err.Write([]byte(msg + "\n\nRun 'pty help' for the list of commands.\n"))
		return 1
	}
	err = io.Exec(path, append([]string{"pty-" + sub}, args...), commands.OneProcEnviron(sub, env))
	return fail(io, "run "+path+": "+err.Error())
}

// retired are the original pty's commands that are gone, with what to
// use instead: people and scripts coming from it type them. A pty-<name>
// plugin on PATH still runs.
var retired = map[string]string{
	"supervisor": "the supervisor is replaced by pty gc, which restarts sessions tagged strategy=permanent and removes dead records; run it on a timer with: pty gc install (see 'pty gc --help')",
	"wrap":       "wrap was removed from the original pty and is not provided here: start the command with pty run -- CMD [ARGS...]",
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString(`pty keeps terminal sessions running in the background: start one, detach,
and attach again later from any terminal.

Usage: pty [--root DIR] [--remote HOST] <command> [args...]
       pty                    open the session picker

Commands:
`)
	for _, c := range commands.Builtin {
		b.WriteString("  " + c.Name + strings.Repeat(" ", max(12-len(c.Name), 0)) + " " + c.Summary + "\n")
	}
	b.WriteString("\nAliases: ls = list, a = attach, i = ui, remove = rm\n")
	if p := commands.Plugins(); len(p) > 0 {
		b.WriteString("\nPlugins (pty-* on PATH):\n")
		for _, name := range p {
			b.WriteString("  " + name + "\n")
		}
	}
	b.WriteString(`
Global flags:
  --root DIR   use DIR as the session registry (sets PTY_ROOT)
  --remote HOST
               run the command on HOST's sessions, over ssh (PTY_REMOTE;
               see 'pty remote --help')
  --version    print the version and the commit it was built from

Run 'pty <command> --help' for a command's flags.
`)
	io.WriteString(w, b.String())
}

// version is the module version and VCS revision stamped by the Go
// toolchain at build time; there is no ldflags step to forget. It is read
// from this executable's file (buildstamp), as runtime/debug would.
func version() string {
	v, commit, dirty := "(devel)", "unknown", false
	if exe, err := os.Executable(); err == nil {
		if s, ok := buildstamp.Read(exe); ok {
			v, dirty = s.Version, s.Modified
			if s.Revision != "" {
				commit = s.Revision
			}
			if len(commit) > 12 {
				commit = commit[:12]
			}
		}
	}
	if dirty {
		commit += "-dirty"
	}
	return v + " (commit " + commit + ")"
}

// suggest returns commands within a small edit distance of sub, or that
// start with it.
func suggest(sub string) []string {
	var out []string
	names := []string{}
	for _, b := range commands.Builtin {
		names = append(names, b.Name)
	}
	for _, a := range commands.Aliases {
		names = append(names, a.Name)
	}
	names = append(names, commands.Plugins()...)
	slices.Sort(names)
	for _, n := range names {
		if len(n) < 3 {
			continue // short aliases match everything loosely
		}
		if textdist.Near(sub, n) {
			out = append(out, n)
		}
	}
	return out
}

// setenv returns env with key set to value, in place of any earlier
// setting (a program reading the environment may take the first).
func setenv(env []string, key, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

func fail(io IO, msg string) int {
	io.Err.Write([]byte("pty: " + msg + "\n"))
	return 1
}
