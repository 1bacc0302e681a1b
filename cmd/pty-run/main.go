// Command pty-run starts a command in a new session and attaches to it
// (or, with -d, leaves it running in the background).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/daemon"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/spawn"
)

// detachKey is the key that detaches, from --detach-key or PTY_DETACH_KEY.
var detachKey func() detachkey.Key

func main() {
	client.IgnoreQuitKey()
	c := cli.NewCommand("run",
		"pty run [-d] [-a] [-e] [--id ID] [--name LABEL] [--tag K=V]... [--env K=V]... [--unset-env K]... [--cwd DIR] [--rows N] [--cols N] [--permanent] [--detach-key KEY] -- CMD [ARGS...]",
		"Start a command in a new session and attach to it.")
	c.Long = `The command runs in a pseudo-terminal held by a small per-session daemon, so
it keeps running after you detach (Ctrl+\, or --detach-key) or close the terminal. Attach again
with "pty attach ID"; "pty peek ID" prints its screen.

Flags stop at "--" or at the first argument that is not a flag.

When the session ends its record is removed, unless it is tagged keep (or
strategy=permanent, or --cleanup-on-clean-exit and the exit code was not 0),
or PTY_REAP_ON_EXIT is false/0/no/off.

Inside a session (PTY_SESSION set) without -d the command runs directly in
the current terminal instead of nesting a session.`
	fs := c.Flags
	detach := fs.Bool("d", false, "start detached: print the id and return once the session is up")
	again := fs.Bool("a", false, "attach if the session --id is running; otherwise create it (reusing a dead record's settings)")
	ephemeral := fs.Bool("e", false, "ephemeral: remove the record when the session ends, however it ends (unless tagged keep)")
	id := fs.String("id", "", "session id: letters, digits, '.', '_', '-', not starting with '.' or '-', without \".tmp.\" or a file suffix (.json, .events, .lock, ...) at the end; default: random")
	name := fs.String("name", "", "display name; default: derived from the directory and command")
	noName := fs.Bool("no-display-name", false, "give the session no display name")
	var tags, envs, unset cli.StringList
	fs.Var(&tags, "tag", "tag `K=V` (repeatable; keys up to 256 bytes, values up to 4096, at most 256 tags and 64 KiB in all)")
	fs.Var(&envs, "env", "set `K=V` in the command's environment (repeatable; last wins)")
	fs.Var(&unset, "unset-env", "remove variable `K` from the command's environment (repeatable)")
	isolate := fs.Bool("isolate-env", false, "start from a minimal environment (PATH, HOME, USER, SHELL, TERM, LANG, LC_*, ...)")
	cwd := fs.String("cwd", "", "working directory (default: the current one)")
	rows := fs.Int("rows", 0, "terminal rows, 1 to 1000 (default: this terminal's, else 24)")
	cols := fs.Int("cols", 0, "terminal columns, 1 to 1000 (default: this terminal's, else 80)")
	permanent := fs.Bool("permanent", false, "tag strategy=permanent: pty gc restarts it when it ends")
	cleanClean := fs.Bool("cleanup-on-clean-exit", false, "remove the record when the command exits 0, keep it otherwise")
	force := fs.Bool("force", false, "inside a session, create a nested session anyway")
	detachKey = c.DetachKeyFlag()
	argv := c.ParseUntilPositional(os.Args[1:])

	if len(argv) == 0 {
		cli.Fatalf("no command given: write it after --, as in: pty run -- bash")
	}
	for _, f := range []struct {
		name   string
		v, max int
	}{{"rows", *rows, proto.MaxRows}, {"cols", *cols, proto.MaxCols}} {
		if flagSet(fs, f.name) && (f.v < 1 || f.v > f.max) {
			cli.Fatalf("--%s %d is out of range: give a number from 1 to %d", f.name, f.v, f.max)
		}
	}
	o := spawn.Options{
		ID:         *id,
		Command:    argv[0],
		Args:       argv[1:],
		Cwd:        *cwd,
		IsolateEnv: *isolate,
		Ephemeral:  *ephemeral,
	}
	// --id "" is a mistake (an unset variable in a script, say), not a
	// request for a random id.
	if *id != "" || flagSet(fs, "id") {
		if err := layout.ValidateID(*id); err != nil {
			cli.Fatalf("%v", err)
		}
	}
	for _, t := range tags {
		k, v, err := cli.ParseKV("--tag", t)
		cli.Check(err)
		if o.Tags == nil {
			o.Tags = map[string]string{}
		}
		o.Tags[k] = v
	}
	if *permanent {
		setTag(&o, "strategy", "permanent")
	}
	if *cleanClean {
		setTag(&o, "strategy.cleanup-on-clean-exit", "true")
	}
	for _, e := range envs {
		k, v, err := cli.ParseKV("--env", e)
		cli.Check(err)
		if o.ExtraEnv == nil {
			o.ExtraEnv = map[string]string{}
		}
		o.ExtraEnv[k] = v
	}
	for _, k := range unset {
		if k == "" || strings.Contains(k, "=") {
			cli.Fatalf("--unset-env %q is invalid: give a variable name, without '='", k)
		}
		o.UnsetEnv = append(o.UnsetEnv, k)
	}
	switch {
	case *noName && *name != "":
		cli.Fatalf("--name and --no-display-name contradict each other: use one")
	case *noName:
		empty := ""
		o.DisplayName = &empty
	case *name != "" || flagSet(fs, "name"):
		if err := layout.ValidateDisplayName(*name); err != nil {
			cli.Fatalf("%v", err)
		}
		o.DisplayName = name
	}
	if *again && *id == "" {
		cli.Fatalf("-a needs --id: it attaches to that session if it is running")
	}

	outer := os.Getenv("PTY_SESSION")
	nested := outer != "" && !*force

	root := cli.Root()
	if *again {
		m, err := layout.ReadMetadata(root, *id)
		if err == nil {
			alive, _ := layout.DaemonAlive(root, *id)
			if alive && !m.Exited() {
				if *detach {
					// -a -d is "make sure it runs": already done.
					fmt.Printf("Session %q is already running.\n", *id)
					return
				}
				if nested {
					cli.Fatalf("already inside pty session %q: attaching to %q here would nest sessions; detach first (%v) or pass --force", outer, *id, detachKey())
				}
				os.Exit(attach(root, *id, *id))
			}
			if !alive {
				reuse(&o, spawn.OptionsFromMetadata(*id, m), len(tags) > 0, *cwd != "", len(envs) > 0 || len(unset) > 0, *name != "" || *noName)
			}
		}
	}

	if nested && !*detach {
		runInPlace(outer, o)
	}

	o.Rows, o.Cols = *rows, *cols
	if o.Rows == 0 || o.Cols == 0 {
		r, cl := client.TermSize(os.Stdout, os.Stdin)
		if o.Rows == 0 {
			o.Rows = r
		}
		if o.Cols == 0 {
			o.Cols = cl
		}
	}
	sid, err := spawn.Start(context.Background(), root, o)
	if err != nil {
		if *again && errors.Is(err, spawn.ErrRunning) && *detach {
			fmt.Printf("Session %q is already running.\n", *id)
			return
		}
		if *again && errors.Is(err, spawn.ErrRunning) && !nested {
			os.Exit(attach(root, *id, *id))
		}
		cli.Fatalf("%v", err)
	}
	if *detach {
		fmt.Printf("Session %q created.\n", sid)
		return
	}
	os.Exit(attach(root, sid, sid))
}

func setTag(o *spawn.Options, k, v string) {
	if o.Tags == nil {
		o.Tags = map[string]string{}
	}
	o.Tags[k] = v
}

// reuse fills o from a dead record's settings where the command line did
// not say otherwise; the command line's command always wins.
func reuse(o *spawn.Options, stored spawn.Options, hasTags, hasCwd, hasEnv, hasName bool) {
	if !hasCwd {
		o.Cwd = stored.Cwd
	}
	if !hasTags {
		for k, v := range stored.Tags {
			setTag(o, k, v)
		}
	}
	if !hasEnv {
		o.ExtraEnv, o.UnsetEnv, o.IsolateEnv = stored.ExtraEnv, stored.UnsetEnv, stored.IsolateEnv || o.IsolateEnv
	}
	if !hasName {
		o.DisplayName = stored.DisplayName
	}
	o.Extra = stored.Extra
	o.Replace = true
}

// runInPlace runs the command in this terminal, with the env edits, as
// the process itself: nesting a session inside a session only confuses
// the detach key.
func runInPlace(outer string, o spawn.Options) {
	fmt.Fprintf(os.Stderr, "Already inside pty session %q, running directly.\n", outer)
	cwd := o.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	if err := spawn.CheckCwd(cwd); err != nil {
		cli.Fatalf("%v", err)
	}
	path := o.ExtraEnv["PATH"]
	if path == "" {
		path = os.Getenv("PATH")
	}
	cmd, err := spawn.ResolveCommand(o.Command, cwd, path)
	cli.Check(err)
	env := daemon.ChildEnv(os.Environ(), o.IsolateEnv, o.UnsetEnv, o.ExtraEnv, "", outer, os.Getenv("PTY_SESSION_GENERATION"))
	if err := os.Chdir(cwd); err != nil {
		cli.Fatalf("Working directory %s: %v", cwd, err)
	}
	err = syscall.Exec(cmd, append([]string{o.Command}, o.Args...), env)
	cli.Fatalf("run %s: %v", cmd, err)
}

func attach(root, id, name string) int {
	conn, err := client.Dial(root, id)
	if err != nil {
		// A command that ends at once may be gone before we connect;
		// its record (when kept) still says how it ended.
		if m, merr := layout.ReadMetadata(root, id); merr == nil && m.ExitCode != nil {
			for _, l := range m.LastLines {
				fmt.Println(l)
			}
			fmt.Printf("[%s exited with code %d]\n", id, *m.ExitCode)
			return *m.ExitCode
		}
		cli.Fatalf("Session %q ended before it could be attached.", id)
	}
	defer conn.Close()
	res, err := client.Attach(conn, client.AttachOptions{In: os.Stdin, Out: os.Stdout, OutFile: os.Stdout, Name: name, DetachKey: detachKey()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pty: "+err.Error())
		return 1
	}
	if res.Exited {
		return res.Code
	}
	return 0
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
