// Package run is `pty run`: start a command in a new session and attach to
// it, or leave it in the background, or (-a) reuse a session by id. Run
// does the work against the streams, root and environment it is given.
//
// Attaching is not here but behind Options.Attacher (package
// run/attached), so that this package links neither the attach client nor
// its terminal emulator: cmd/pty-run parses the command line and runs -d
// itself, and execs cmd/pty-run-attach, which sets the Attacher, for every
// form that attaches (docs/contributing.md, the dispatcher's size rule).
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/tty"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/spawn"
)

// Options are pty run's flags and the command after them. The *Set fields
// say whether a flag was given at all: --id "" is a mistake, not a request
// for a random id.
type Options struct {
	Argv               []string // the command and its arguments
	Detach             bool     // -d
	PrintID            bool     // -P, --print-id: with -d, print only the id
	JSON               bool     // --json: with -d, print the session as JSON
	Again              bool     // -a
	Ephemeral          bool     // -e
	ID                 string
	IDSet              bool
	Name               string
	NameSet            bool
	NoName             bool
	Tags               []string // K=V
	Env                []string // K=V
	Unset              []string
	IsolateEnv         bool
	Cwd                string
	Rows, Cols         int
	RowsSet, ColsSet   bool
	Scrollback         int // lines; without ScrollbackSet, $PTY_SCROLLBACK or the default
	ScrollbackSet      bool
	Permanent          bool
	CleanupOnCleanExit bool
	Force              bool
	// DetachKey is the key that detaches (--detach-key, PTY_DETACH_KEY).
	// nil means Ctrl+\.
	DetachKey detachkey.Source

	// Attacher attaches to the session once it runs; without -d Run
	// needs it (attached.Terminal), with -d it is never used.
	Attacher Attacher

	// unlock releases the name lock -a --name holds (lockName); attach
	// calls it first, since the lock is held only until the session is
	// in the registry.
	unlock func()
}

// Attacher is the terminal side of pty run, which the detached start does
// without (package attached has the one pty-run-attach uses).
type Attacher interface {
	// NeedTerminal refuses, before anything is started, an attach
	// whose standard input is not a terminal.
	NeedTerminal(in *os.File) error
	// Attach attaches io's terminal to the session id of io.Root, which
	// was just started or found running, with the detach key of src.
	Attach(io cli.IO, id string, src detachkey.Source) error
}

// errNoAttacher is Run without -d and without an Attacher: a caller's
// mistake, since cmd/pty-run leaves those forms to pty-run-attach.
var errNoAttacher = errors.New("pty run without -d attaches to the session, which this program cannot do: run it as pty run, or add -d")

// Command declares run's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("run",
		"pty run [-d [-P | --json]] [-a] [-e] [--id ID] [--name LABEL] [--tag K=V]... [--env K=V]... [--unset-env K]... [--cwd DIR] [--rows N] [--cols N] [--scrollback N] [--permanent] [--detach-key KEY] -- CMD [ARGS...]",
		"Start a command in a new session and attach to it.")
	c.Long = `The command runs in a pseudo-terminal held by a small per-session daemon, so
it keeps running after you detach (Ctrl+\, or --detach-key) or close the terminal. Attach again
with "pty attach ID"; "pty peek ID" prints its screen.

Flags stop at "--" or at the first argument that is not a flag.

Without -d it attaches, which needs a terminal on standard input; from a
script, start it with -d and use "pty peek", "pty peek -f" and "pty send".
With -d, -P (--print-id) prints only the id, as in id=$(pty run -d -P -- cmd),
and --json one object: {"id", "name" (the display name, or null), "pid" (the
session's daemon), "generation", "socket"}; pid is 0 and generation "" when
the session has already ended and its record is gone.

With -a and --name instead of --id, the session is the one whose display
name is exactly LABEL (several with it are an error), else the one whose id
is LABEL (the original pty's --name set the id), else a new one with that
name and a random id. Runs of -a --name LABEL at the same moment (and a
restart of the session named LABEL) take turns, so exactly one session is
made: the others attach to it, or with -d say it is running. Without -a,
--name is only a label, which other sessions may have too.

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
	fs := c.Flags
	fs.BoolVar(&o.Detach, "detach", false, "start detached: print the id and return once the session is up")
	c.Alias("d", "detach")
	fs.BoolVar(&o.PrintID, "print-id", false, "with -d: print only the session's id, for id=$(pty run -d -P -- cmd)")
	c.Alias("P", "print-id")
	fs.BoolVar(&o.JSON, "json", false, "with -d: print {id, name, pid, generation, socket} as JSON")
	fs.BoolVar(&o.Again, "attach", false, "attach if the session --id (or the one named --name) is running; otherwise create it (reusing a dead record's settings)")
	c.Alias("a", "attach")
	fs.BoolVar(&o.Ephemeral, "ephemeral", false, "ephemeral: remove the record when the session ends, however it ends (unless tagged keep)")
	c.Alias("e", "ephemeral")
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
	return c
}

// Parse fills o from the command line (without the program name): flags
// stop at "--" or at the first argument that is not a flag.
func Parse(c *cli.Command, o *Options, args []string) {
	o.Argv = c.ParseUntilPositional(args)
	o.IDSet, o.NameSet, o.RowsSet, o.ColsSet = c.Set("id"), c.Set("name"), c.Set("rows"), c.Set("cols")
	o.ScrollbackSet = c.Set("scrollback")
}

// Run starts the session and, without -d, attaches io's terminal to it.
// Inside a session without -d it replaces this process with the command
// instead (see inPlace), and does not return on success.
func Run(ctx context.Context, o Options, io cli.IO) error {
	so, err := launchOptions(o)
	if err != nil {
		return err
	}
	outer := io.Getenv("PTY_SESSION")
	nested := outer != "" && !o.Force
	root := io.Root
	if !o.Detach && !nested {
		if _, err := o.DetachKey.Key(io.Getenv); err != nil {
			return err // a bad key is said first
		}
		if o.Attacher == nil {
			return errNoAttacher
		}
		if err := o.Attacher.NeedTerminal(io.In); err != nil {
			return err
		}
	}
	if o.Again && so.DisplayName != nil && *so.DisplayName != "" {
		unlock, err := lockName(root, *so.DisplayName)
		if err != nil {
			return err
		}
		defer unlock()
		o.unlock = unlock
	}
	if o.Again && o.ID == "" {
		// -a --name: the session with exactly that display name, or a
		// new one with that name, as the original pty does.
		id, err := byName(root, o.Name)
		if err != nil {
			return err
		}
		o.ID, so.ID = id, id
	}
	if o.Again && o.ID != "" {
		// A record replaced or removed while we relaunched it (gc, another
		// run -a) is looked at afresh: attached to if it now runs, created
		// from the command line if it is gone.
		for try := 0; ; try++ {
			done, err := again(ctx, o, &so, nested, outer, io)
			if errors.Is(err, spawn.ErrReplaced) && try < 3 {
				continue
			}
			if done || err != nil {
				return err
			}
			break
		}
	}
	if nested && !o.Detach {
		return inPlace(outer, so, io)
	}
	so.Rows, so.Cols = o.Rows, o.Cols
	if so.Rows == 0 || so.Cols == 0 {
		r, c := tty.Size(io.OutFile(), io.In)
		if so.Rows == 0 {
			so.Rows = r
		}
		if so.Cols == 0 {
			so.Cols = c
		}
	}
	so.Env = io.Env
	sid, err := spawn.Start(ctx, root, so)
	if err != nil {
		if o.Again && errors.Is(err, spawn.ErrRunning) && o.Detach {
			return o.started(io, o.ID, "Session %q is already running.\n")
		}
		if o.Again && errors.Is(err, spawn.ErrRunning) && !nested {
			return o.attach(io, o.ID)
		}
		return err
	}
	if o.Detach {
		return o.started(io, sid, "Session %q created.\n")
	}
	return o.attach(io, sid)
}

// lockName takes the name lock of run -a --name (registry.NameLock) and
// returns its release, which may be called more than once. It is held
// from the look for the name until the session is in the registry, so
// that of two run -a with one name, started at the same moment, one
// creates the session and the other finds it.
func lockName(root, name string) (func(), error) {
	if err := layout.EnsureRoot(root); err != nil {
		return nil, err
	}
	l, err := registry.NameLock(root, name, registry.NameLockWait)
	if errors.Is(err, layout.ErrLockBusy) {
		return nil, fmt.Errorf("another pty run -a --name %q is still starting or restarting it after %v: try again (%w)", name, registry.NameLockWait, err)
	}
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { l.Release() }) }, nil
}

// attach attaches to session id once the name lock, if any, is released.
func (o Options) attach(io cli.IO, id string) error {
	if o.unlock != nil {
		o.unlock()
	}
	if o.Attacher == nil {
		return errNoAttacher
	}
	return o.Attacher.Attach(io, id, o.DetachKey)
}

// started reports the session id that -d started (or found running): the
// sentence human (a format with the id), or the id alone (-P), or JSON.
func (o Options) started(io cli.IO, id, human string) error {
	switch {
	case o.PrintID:
		_, err := fmt.Fprintln(io.Out, id)
		return err
	case o.JSON:
		out := struct {
			ID         string  `json:"id"`
			Name       *string `json:"name"`
			Pid        int     `json:"pid"`
			Generation string  `json:"generation"`
			Socket     string  `json:"socket"`
		}{ID: id, Socket: layout.At(io.Root).Paths(id).Sock()}
		// The record is there once the session is up; a command that
		// exited 0 at once may have had it removed already.
		if s, err := layout.At(io.Root).Load(id); err == nil {
			out.Name, out.Pid, out.Generation = s.Meta.DisplayName, s.Pid, s.Meta.Generation
		}
		b, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(io.Out, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintf(io.Out, human, id)
	return err
}

// launchOptions checks the flags and turns them into launch settings.
func launchOptions(o Options) (spawn.Options, error) {
	var so spawn.Options
	if (o.PrintID || o.JSON) && !o.Detach {
		return so, errors.New("-P and --json describe the session -d starts in the background: add -d")
	}
	if o.PrintID && o.JSON {
		return so, errors.New("-P and --json cannot be combined: -P prints the id alone, --json an object with it")
	}
	if len(o.Argv) == 0 {
		return so, spawn.ErrNoCommand
	}
	for _, f := range []struct {
		name   string
		set    bool
		v, max int
	}{{"rows", o.RowsSet, o.Rows, proto.MaxRows}, {"cols", o.ColsSet, o.Cols, proto.MaxCols}} {
		if f.set && (f.v < 1 || f.v > f.max) {
			return so, fmt.Errorf("--%s %d is out of range: give a number from 1 to %d", f.name, f.v, f.max)
		}
	}
	so = spawn.Options{
		ID:         o.ID,
		Command:    o.Argv[0],
		Args:       o.Argv[1:],
		Cwd:        o.Cwd,
		IsolateEnv: o.IsolateEnv,
		Ephemeral:  o.Ephemeral,
	}
	if o.ScrollbackSet {
		if o.Scrollback < 0 || o.Scrollback > launchconfig.MaxScrollback {
			return so, fmt.Errorf("--scrollback %d is out of range: give a number of lines from 0 to %d", o.Scrollback, launchconfig.MaxScrollback)
		}
		n := o.Scrollback
		so.Scrollback = &n
	}
	if o.ID != "" || o.IDSet {
		if err := layout.ValidateID(o.ID); err != nil {
			return so, err
		}
	}
	for _, t := range o.Tags {
		k, v, err := cli.ParseKV("--tag", t)
		if err != nil {
			return so, err
		}
		setTag(&so, k, v)
	}
	if o.Permanent {
		setTag(&so, layout.TagStrategy, layout.StrategyPermanent)
	}
	if o.CleanupOnCleanExit {
		setTag(&so, layout.TagCleanupOnCleanExit, "true")
	}
	for _, e := range o.Env {
		k, v, err := cli.ParseKV("--env", e)
		if err != nil {
			return so, err
		}
		if so.ExtraEnv == nil {
			so.ExtraEnv = map[string]string{}
		}
		so.ExtraEnv[k] = v
	}
	for _, k := range o.Unset {
		if k == "" || strings.Contains(k, "=") {
			return so, fmt.Errorf("--unset-env %q is invalid: give a variable name, without '='", k)
		}
		so.UnsetEnv = append(so.UnsetEnv, k)
	}
	switch {
	case o.NoName && o.Name != "":
		return so, errors.New("--name and --no-display-name contradict each other: use one")
	case o.NoName:
		empty := ""
		so.DisplayName = &empty
	case o.Name != "" || o.NameSet:
		if err := layout.ValidateDisplayName(o.Name); err != nil {
			return so, err
		}
		name := o.Name
		so.DisplayName = &name
	}
	if o.Again && o.ID == "" && so.DisplayName == nil {
		return so, errors.New("-a needs --id or --name: it attaches to that session if it is running")
	}
	if o.Again && o.ID == "" && *so.DisplayName == "" {
		return so, errors.New("-a with --no-display-name names no session: give --id")
	}
	return so, nil
}

// byName is the id of the one session whose display name is exactly name,
// else of the session with that id (0.10.0's --name was the id, so its
// sessions are found by it), or "" (start a new one); several sessions
// with the name are ambiguous.
func byName(root, name string) (string, error) {
	list, err := layout.At(root).List()
	if err != nil {
		return "", err
	}
	var ids []string
	for _, s := range list {
		if s.Meta != nil && s.Meta.DisplayName != nil && *s.Meta.DisplayName == name {
			ids = append(ids, s.ID)
		}
	}
	switch len(ids) {
	case 0:
		if layout.ValidateID(name) == nil {
			if _, err := layout.At(root).Load(name); err == nil {
				return name, nil
			}
		}
		return "", nil
	case 1:
		return ids[0], nil
	}
	sort.Strings(ids)
	return "", fmt.Errorf("Session name %q is ambiguous: %s have it. Use -a --id with one of them", name, strings.Join(ids, ", "))
}

func setTag(o *spawn.Options, k, v string) {
	if o.Tags == nil {
		o.Tags = map[string]string{}
	}
	o.Tags[k] = v
}

// again is -a for an id with a record: attach to it when it runs (done),
// else start it again through lifecycle.Relaunch with the record's settings
// where the command line did not say otherwise (done). It leaves so to a
// plain start when there is no usable record.
func again(ctx context.Context, o Options, so *spawn.Options, nested bool, outer string, io cli.IO) (done bool, err error) {
	root := io.Root
	s, err := layout.At(root).Load(o.ID)
	if err != nil || s.Damaged != "" {
		return false, nil
	}
	if s.Shown() == layout.Running {
		if o.Detach {
			// -a -d is "make sure it runs": already done.
			return true, o.started(io, o.ID, "Session %q is already running.\n")
		}
		if nested {
			key, err := o.DetachKey.Key(io.Getenv)
			if err != nil {
				return true, err
			}
			return true, fmt.Errorf("already inside pty session %q: attaching to %q here would nest sessions; detach first%s, or pass --force", outer, o.ID, key.With())
		}
		return true, o.attach(io, o.ID)
	}
	if nested && !o.Detach {
		// Run in place with the stored settings filled in; no session
		// is started.
		*so = reuse(*so, spawn.OptionsFromMetadata(o.ID, s.Meta), o)
		return false, nil
	}
	rows, cols := o.Rows, o.Cols
	if rows == 0 || cols == 0 {
		r, c := tty.Size(io.OutFile(), io.In)
		if rows == 0 {
			rows = r
		}
		if cols == 0 {
			cols = c
		}
	}
	cmdline := *so
	_, err = lifecycle.Relaunch(ctx, root, s, lifecycle.RelaunchOptions{
		Env: io.Env, Rows: rows, Cols: cols,
		Launch:     func(stored spawn.Options) spawn.Options { return reuse(cmdline, stored, o) },
		NameLocked: o.unlock != nil,
	})
	switch {
	case err == nil && o.Detach:
		return true, o.started(io, o.ID, "Session %q created.\n")
	case err == nil:
		return true, o.attach(io, o.ID)
	case errors.Is(err, spawn.ErrRunning) && o.Detach:
		// Someone else started it meanwhile: it runs, as asked.
		return true, o.started(io, o.ID, "Session %q is already running.\n")
	case errors.Is(err, spawn.ErrRunning):
		return true, o.attach(io, o.ID)
	}
	return true, err
}

// reuse fills the command line's settings from a dead record's where the
// command line did not say otherwise; the command line's command always
// wins.
func reuse(o spawn.Options, stored spawn.Options, f Options) spawn.Options {
	if f.Cwd == "" {
		o.Cwd = stored.Cwd
	}
	if len(f.Tags) == 0 {
		for k, v := range stored.Tags {
			setTag(&o, k, v)
		}
	}
	if len(f.Env) == 0 && len(f.Unset) == 0 {
		o.ExtraEnv, o.UnsetEnv, o.IsolateEnv = stored.ExtraEnv, stored.UnsetEnv, stored.IsolateEnv || o.IsolateEnv
	}
	if f.Name == "" && !f.NoName {
		o.DisplayName = stored.DisplayName
	}
	if !f.ScrollbackSet {
		o.Scrollback = stored.Scrollback
	}
	o.Extra = stored.Extra
	o.Replace = true
	return o
}

// inPlace runs the command in this terminal, with the env edits, as the
// process itself: nesting a session inside a session only confuses the
// detach key.
func inPlace(outer string, o spawn.Options, io cli.IO) error {
	fmt.Fprintf(io.Err, "Already inside pty session %q, running directly.\n", outer)
	cwd := o.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	if err := launchconfig.CheckCwd(cwd); err != nil {
		return err
	}
	path := o.ExtraEnv["PATH"]
	if path == "" {
		path = io.Getenv("PATH")
	}
	cmd, err := spawn.ResolveCommand(o.Command, cwd, path)
	if err != nil {
		return err
	}
	env := launchconfig.ChildEnv(io.Env, o.IsolateEnv, o.UnsetEnv, o.ExtraEnv, "", outer, io.Getenv("PTY_SESSION_GENERATION"))
	if err := os.Chdir(cwd); err != nil {
		return fmt.Errorf("Working directory %s: %v", cwd, err)
	}
	err = syscall.Exec(cmd, append([]string{o.Command}, o.Args...), env)
	return fmt.Errorf("run %s: %v", cmd, err)
}
