// Package cli holds what every pty-<sub> main shares: flag parsing with ff,
// the root from --root or the environment, and the one-line error
// convention (message on stderr, exit status 1, never a stack trace).
//
// A flag is declared once on Command.Flags; Alias gives it its other
// name (-f for --follow) and Env binds the one environment variable that
// sets it when the command line does not (--root and PTY_ROOT). Help,
// error messages and shell completion all read those declarations.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/peterbourgon/ff/v3"
	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/internal/textdist"
	"github.com/ptyorg/pty/pkg/cli/lite"
	"github.com/ptyorg/pty/pkg/commands"
	"github.com/ptyorg/pty/pkg/layout"
)

// Command describes one subcommand for flag parsing and --help.
type Command struct {
	Name    string // "run", as typed after "pty"
	Usage   string // "pty run [flags] -- CMD [ARGS...]"
	Summary string // one line, shown by "pty help"
	Long    string // optional paragraphs after the usage line
	Flags   *flag.FlagSet

	aliases map[string]string // alias -> the flag's main name
	hidden  map[string]bool   // flags --help leaves to Long, where they apply
	env     []envBinding
	values  map[string]string // flag -> what its value is, for completion
	root    string            // --root, "" when not given
}

type envBinding struct{ flag, variable string }

// NewCommand makes a Command with an empty flag set that reports errors
// to the caller instead of exiting. A built-in command's summary comes
// from the registry (pkg/commands); summary is for plugins and for
// sub-commands such as "gc install".
func NewCommand(name, usage string, summary ...string) *Command {
	fs := flag.NewFlagSet("pty "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := &Command{Name: name, Usage: usage, Summary: strings.Join(summary, " "), Flags: fs}
	fs.Var(rootFlag{c}, "root", "the registry `DIR` (default ~/.local/state/pty)")
	if b, ok := commands.Lookup(name); ok {
		c.Summary = sentence(b.Summary)
	}
	c.Env("root", "PTY_ROOT")
	c.Values("root", ValueDir)
	return c
}

// sentence makes a registry summary the first line of --help.
func sentence(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// Set reports whether the flag name (either of its names) was given on
// the command line or by its environment variable (see Env).
func (c *Command) Set(name string) bool {
	if main, ok := c.aliases[name]; ok {
		name = main
	}
	set := false
	c.Flags.Visit(func(f *flag.Flag) {
		set = set || f.Name == name || c.aliases[f.Name] == name
	})
	return set
}

// Alias registers alias as another name of the flag name, already
// defined on c.Flags: "-f" for "--follow". Both are parsed into the same
// value; help shows them on one line and completion offers both.
func (c *Command) Alias(alias, name string) {
	f := c.Flags.Lookup(name)
	if f == nil {
		panic("cli: alias " + alias + " of undefined flag " + name)
	}
	c.Flags.Var(f.Value, alias, f.Usage)
	if c.aliases == nil {
		c.aliases = map[string]string{}
	}
	c.aliases[alias] = name
}

// Hide keeps the flag name, already defined on c.Flags, out of --help's
// flag list: one that applies only with another flag, which Long then
// describes where it applies. It is still parsed.
func (c *Command) Hide(name string) {
	if c.Flags.Lookup(name) == nil {
		panic("cli: hiding undefined flag " + name)
	}
	if c.hidden == nil {
		c.hidden = map[string]bool{}
	}
	c.hidden[name] = true
}

// Env binds the environment variable variable to the flag name, already
// defined on c.Flags: when the command line does not give the flag and
// the variable is set and not empty, the flag takes the variable's value,
// checked like a typed one. Only variables bound this way are read: the
// environment of a pty session carries PTY_SESSION and others that are
// no flag's business, so there is no prefix-wide binding.
func (c *Command) Env(name, variable string) {
	if c.Flags.Lookup(name) == nil {
		panic("cli: environment variable " + variable + " bound to undefined flag " + name)
	}
	c.env = append(c.env, envBinding{name, variable})
}

// What a flag's value is, for shell completion (Values).
const (
	ValueDir    = "dir"    // a directory
	ValueFile   = "file"   // a file
	ValueRef    = "ref"    // a session id or display name
	ValueStatus = "status" // a session status
	ValueEvent  = "event"  // an event type
)

// Values says what the value of the flag name is, so that completion can
// offer directories, files or sessions for it. Free text needs nothing.
func (c *Command) Values(name, kind string) {
	if c.values == nil {
		c.values = map[string]string{}
	}
	c.values[name] = kind
}

// rootFlag is --root DIR, accepted by every command anywhere on its line
// as the original pty accepts it, and bound to PTY_ROOT (see Root).
type rootFlag struct{ c *Command }

func (rootFlag) String() string { return "" }

func (f rootFlag) Set(v string) error {
	if v == "" {
		return errors.New("give the registry directory")
	}
	f.c.root = v
	return nil
}

// setFromEnv leaves PTY_ROOT to Root, which reads it with PTY_SESSION_DIR
// so that it can warn when both are set.
func (rootFlag) setFromEnv(string) error { return nil }

// Root finds the registry of this run: --root when given, else what the
// environment (read with getenv) names (layout.ResolveRoot: PTY_ROOT, the
// deprecated PTY_SESSION_DIR, XDG_STATE_HOME, HOME), with any deprecation
// notice to print. An explicit root beats the legacy variable silently.
// It does not create the directory, but refuses one that exists and is
// not a directory.
func (c *Command) Root(getenv func(string) string) (dir string, warnings []string, err error) {
	if c.root != "" {
		env := getenv
		getenv = func(k string) string {
			switch k {
			case "PTY_ROOT":
				return c.root
			case "PTY_SESSION_DIR":
				return ""
			}
			return env(k)
		}
	}
	return lite.Root(getenv)
}

// System is the IO of a real run of c (the package's System) with the root
// Root finds from the process's environment. It prints the deprecation
// notices on stderr, and ends the process through Exit when there is no
// usable root.
func (c *Command) System() IO { return lite.SystemFrom(c.Root) }

// PrintHelp writes --help output.
func (c *Command) PrintHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage: %s\n", c.Summary, c.Usage)
	if c.Long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Long, "\n"))
	}
	var lines []string
	c.Flags.VisitAll(func(f *flag.Flag) {
		if _, ok := c.aliases[f.Name]; ok || c.hidden[f.Name] {
			return
		}
		lines = append(lines, c.flagHelp(f))
	})
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", strings.Join(lines, ""))
	}
}

// flagHelp formats one flag the way people type it: "-d" for one letter,
// "--name" otherwise (ff accepts both), its aliases before it, with an
// upper-case placeholder for its value, then the description and the
// environment variable bound to it. The standard library's PrintDefaults
// shows "-name string", which reads like a Go program's flags rather
// than a command's.
func (c *Command) flagHelp(f *flag.Flag) string {
	placeholder, usage := flag.UnquoteUsage(f)
	switch placeholder {
	case "int", "uint", "float":
		placeholder = "N"
	case "string", "value":
		placeholder = "VALUE"
	case "duration":
		placeholder = "DURATION"
	}
	head := dashed(f.Name)
	for _, a := range c.aliasesOf(f.Name) {
		head = dashed(a) + ", " + head
	}
	if placeholder != "" {
		head += " " + strings.ToUpper(placeholder)
	}
	switch f.DefValue {
	case "", "0", "false", "[]":
	default:
		usage += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	for _, b := range c.env {
		if b.flag == f.Name {
			usage += " (env " + b.variable + ")"
		}
	}
	const col = 26
	if len(head) <= col-4 {
		return fmt.Sprintf("  %-*s%s\n", col-2, head, usage)
	}
	return fmt.Sprintf("  %s\n  %*s%s\n", head, col-2, "", usage)
}

// aliasesOf returns the other names of the flag name, sorted.
func (c *Command) aliasesOf(name string) []string {
	var out []string
	for a, n := range c.aliases {
		if n == name {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// Parse parses args (without the program name), then the bound
// environment variables. --help prints help and exits 0; a bad flag is a
// usage error. Flags may be interleaved with positional arguments, except
// after "--".
func (c *Command) Parse(args []string) []string {
	pos, err := c.ParseArgs(args)
	c.exitOn(err)
	return pos
}

// ParseUntilPositional stops at the first positional argument (for
// commands like run whose tail is a command line).
func (c *Command) ParseUntilPositional(args []string) []string {
	c.describe()
	err := ff.Parse(c.Flags, args)
	if err == nil {
		err = c.parseEnv()
	}
	c.exitOn(err)
	return c.Flags.Args()
}

// ParseArgs is Parse that returns the error (flag.ErrHelp for --help)
// instead of exiting, for tests and for commands that parse twice.
func (c *Command) ParseArgs(args []string) ([]string, error) {
	c.describe()
	var pos []string
	rest := args
	for {
		// Like the flag package, which stops at the first non-flag
		// argument: step over it and go on. (ff.Parse without options
		// is this, after mapping every flag to an environment variable
		// that nothing reads: a cost on every command's start.)
		if err := c.Flags.Parse(rest); err != nil {
			return nil, fmt.Errorf("error parsing commandline arguments: %w", err)
		}
		rest = c.Flags.Args()
		if len(rest) == 0 {
			break
		}
		// Everything after "--" is positional, verbatim.
		if consumedDashDash(args, rest) {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		rest = rest[1:]
	}
	return pos, c.parseEnv()
}

func (c *Command) exitOn(err error) {
	if errors.Is(err, flag.ErrHelp) {
		c.PrintHelp(os.Stdout)
		os.Exit(0)
	}
	if err != nil {
		Exit(fmt.Errorf("%v (see 'pty %s --help')", c.flagError(err), c.Name))
	}
}

// flagError words an error of ParseArgs the way people type flags.
func (c *Command) flagError(err error) error {
	var ee envError
	if errors.As(err, &ee) {
		return ee
	}
	return cleanFlagErr(c.Flags, err)
}

// parseEnv gives each flag the command line left unset the value of its
// bound variable, through ff's environment pass over a flag set that
// holds only the bound variables (named as themselves, so WithEnvVars
// reads exactly them).
func (c *Command) parseEnv() error {
	if len(c.env) == 0 {
		return nil
	}
	fs := flag.NewFlagSet(c.Flags.Name()+" environment", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, b := range c.env {
		if !c.Set(b.flag) {
			fs.Var(envValue{c, b}, b.variable, "")
		}
	}
	err := ff.Parse(fs, nil, ff.WithEnvVars())
	var ee envError
	if errors.As(err, &ee) {
		return ee
	}
	return err
}

// envValue sets a command's flag from its bound variable.
type envValue struct {
	c *Command
	b envBinding
}

func (envValue) String() string { return "" }

func (v envValue) Set(s string) error {
	f := v.c.Flags.Lookup(v.b.flag)
	var err error
	if r, ok := f.Value.(interface{ setFromEnv(string) error }); ok {
		err = r.setFromEnv(s)
	} else {
		err = v.c.Flags.Set(v.b.flag, s)
	}
	if err != nil {
		why := err.Error()
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() && why == "parse error" {
			return envError{fmt.Sprintf("%s: %q is not true or false", v.b.variable, s)}
		}
		return envError{fmt.Sprintf("%s: %q %s", v.b.variable, s, valueProblem(f, why))}
	}
	return nil
}

// envError is a bad value in a bound variable, already worded.
type envError struct{ msg string }

func (e envError) Error() string { return e.msg }

// DescribeEnv set to 1 asks a command to print its flags instead of
// running (see describe).
const DescribeEnv = lite.DescribeEnv

// describe answers shell completion: with PTY_DESCRIBE_FLAGS=1 the
// command prints every name of every flag of its flag set, one a line as
// "NAME<TAB>takes<TAB>VALUES" (takes is 1 for a flag that takes a value,
// VALUES what it is, see Values), and exits 0 without doing anything.
// Completion thereby offers exactly the flags the command parses.
func (c *Command) describe() {
	if os.Getenv(DescribeEnv) != "1" {
		return
	}
	c.Flags.VisitAll(func(f *flag.Flag) {
		takes := "1"
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			takes = "0"
		}
		name := f.Name
		if m, ok := c.aliases[name]; ok {
			name = m
		}
		fmt.Printf("%s\t%s\t%s\n", f.Name, takes, c.values[name])
	})
	os.Exit(0)
}

func consumedDashDash(all, rest []string) bool {
	n := len(all) - len(rest)
	return n > 0 && all[n-1] == "--"
}

// cleanFlagErr turns the flag package's messages, written for Go
// programs ("flag provided but not defined: -force"), into the form
// people type flags in: "unknown flag --force".
func cleanFlagErr(fs *flag.FlagSet, err error) error {
	s := strings.TrimPrefix(err.Error(), "error parsing commandline arguments: ")
	if name, ok := strings.CutPrefix(s, "flag provided but not defined: "); ok {
		return errors.New("unknown flag " + dashed(name) + suggestFlag(fs, name))
	}
	if name, ok := strings.CutPrefix(s, "flag needs an argument: "); ok {
		return errors.New(dashed(name) + " needs a value")
	}
	if rest, ok := strings.CutPrefix(s, "invalid value "); ok {
		// invalid value "abc" for flag -rows: parse error
		if i := strings.Index(rest, " for flag "); i > 0 {
			val, tail := rest[:i], rest[i+len(" for flag "):]
			name, why, _ := strings.Cut(tail, ": ")
			return fmt.Errorf("%s: %s %s", dashed(name), val, valueProblem(fs.Lookup(strings.TrimLeft(name, "-")), why))
		}
	}
	if rest, ok := strings.CutPrefix(s, "invalid boolean value "); ok {
		// invalid boolean value "maybe" for -d: parse error
		if val, name, ok := strings.Cut(rest, " for "); ok {
			name, _, _ = strings.Cut(name, ":")
			return fmt.Errorf("%s: %s is not true or false", dashed(name), val)
		}
	}
	return errors.New(s)
}

// suggestFlag names the flags the mistyped one is near (textdist.Near,
// the rule command typos use), as "; did you mean --json?", or "".
// One-letter flags are left out: every short typo is near them.
func suggestFlag(fs *flag.FlagSet, name string) string {
	name = strings.TrimLeft(name, "-")
	var near []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 && textdist.Near(name, f.Name) {
			near = append(near, dashed(f.Name))
		}
	})
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// dashed writes a flag name as it is typed: -d for one letter, --name
// otherwise, whatever dashes the message came with.
func dashed(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// valueProblem says in words what was wrong with a flag's value: the
// flag package reports every conversion failure as "parse error".
func valueProblem(f *flag.Flag, why string) string {
	if why == "value out of range" {
		return "is out of range"
	}
	if why != "parse error" {
		return "is not valid: " + why
	}
	var v any
	if f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			v = g.Get()
		}
	}
	switch v.(type) {
	case int, int64, uint, uint64:
		return "is not a whole number"
	case float64:
		return "is not a number"
	case time.Duration:
		return "is not a duration (write it like 30s, 5m or 2h)"
	}
	return "is not valid"
}

// Sentencef is an error made with fmt.Sprintf whose text begins with what
// it is about ("Session %q is not running."), printed without "pty: "
// (see Message).
func Sentencef(format string, args ...any) error {
	return errs.Sentence(fmt.Sprintf(format, args...), nil)
}

// Context is cancelled on SIGINT or SIGTERM.
func Context() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// ResolveToChange resolves ref for a command that changes or stops the
// session: it first refuses a root owned by another user or writable by
// others (rootdir.CheckWritable), before anything is touched.
func ResolveToChange(root, ref string) (layout.Session, error) {
	if err := rootdir.CheckWritable(root); err != nil {
		return layout.Session{}, err
	}
	return layout.At(root).Resolve(ref)
}

// StringList is a repeatable string flag.
type StringList []string

func (s *StringList) String() string     { return strings.Join(*s, ",") }
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// ParseKV splits "k=v" (value is everything after the first '='); what
// names the flag in the error.
func ParseKV(what, s string) (string, string, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return "", "", fmt.Errorf("%s %q has no '=': write it as KEY=VALUE", what, s)
	}
	if k == "" {
		return "", "", fmt.Errorf("%s %q has an empty key: write it as KEY=VALUE", what, s)
	}
	return k, v, nil
}

// ResolveOrCurrent resolves ref, or when ref is empty the session this
// process runs inside: current, the exact id IO.Session holds. hint
// completes the error when there is neither, e.g. "give a session id or
// name".
func ResolveOrCurrent(root, ref, current, hint string) (layout.Session, error) {
	if ref != "" {
		return layout.At(root).Resolve(ref)
	}
	if current == "" {
		return layout.Session{}, fmt.Errorf("no session given and not inside a pty session ($PTY_SESSION is unset): %s", hint)
	}
	if err := layout.ValidateID(current); err != nil {
		return layout.Session{}, fmt.Errorf("$PTY_SESSION is not a session id: %v", err)
	}
	s, err := layout.At(root).Load(current)
	if errors.Is(err, layout.ErrNotFound) {
		return s, errs.Sentence(fmt.Sprintf("Session %q (from $PTY_SESSION) not found.", current), nil)
	}
	return s, err
}
