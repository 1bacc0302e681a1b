// Package completion completes pty command lines for bash, zsh and fish.
// The shells' scripts are thin: each TAB runs `pty completions --complete
// WORDS...`, and Complete works out the candidates from one table of
// commands (pkg/commands), the flags each command declares (asked of the
// command itself, so they cannot drift), the sessions in the registry,
// and the pty-* plugins on PATH. One
// implementation means the three shells complete the same way.
package completion

import (
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/commands"
)

// Arg is what a positional argument or a flag's value is.
type Arg int

const (
	None        Arg = iota // nothing to complete (free text, numbers)
	Ref                    // a session id or display name
	Dir                    // a directory
	File                   // a file
	Command                // a program on PATH (after run's --)
	Status                 // running, exited, vanished
	EventType              // an event type for events --wait
	Shell                  // bash, zsh, fish
	StateSub               // state's sub-commands
	UpArg                  // up/down: a directory with a pty.toml, or a session name of ./pty.toml
	EvidenceSub            // evidence's operations
)

// Flag is one name of a flag of a command. Value is None for a boolean
// flag.
type Flag struct {
	Name  string
	Value Arg
	Takes bool // takes a value (even one we cannot complete)
}

// valueKinds maps what pkg/cli says a flag's value is (Command.Values)
// to what completion offers for it.
var valueKinds = map[string]Arg{
	cli.ValueDir: Dir, cli.ValueFile: File, cli.ValueRef: Ref, cli.ValueStatus: Status, cli.ValueEvent: EventType,
}

// Cmd is one subcommand: its positional arguments (its flags are its
// own: Source.Flags asks the command). The last positional kind repeats
// when Variadic is set.
type Cmd struct {
	Name     string
	Summary  string
	Args     []Arg
	Variadic bool
	// DashDash: after "--" the words are a command line (run).
	DashDash bool
}

// positional says what each command's positional arguments are; names
// and summaries come from the registry (pkg/commands).
var positional = map[string]Cmd{
	"run":         {DashDash: true},
	"attach":      {Args: []Arg{Ref}},
	"switch":      {Args: []Arg{Ref}},
	"peek":        {Args: []Arg{Ref}},
	"send":        {Args: []Arg{Ref, None}},
	"stats":       {Args: []Arg{Ref}},
	"kill":        {Args: []Arg{Ref}},
	"rm":          {Args: []Arg{Ref}},
	"restart":     {Args: []Arg{Ref}},
	"tag":         {Args: []Arg{Ref, None}, Variadic: true},
	"tag-multi":   {Args: []Arg{Ref}, Variadic: true},
	"rename":      {Args: []Arg{Ref, None}},
	"state":       {Args: []Arg{StateSub, Ref, None}},
	"emit":        {Args: []Arg{Ref, None}},
	"events":      {Args: []Arg{Ref}},
	"metadata":    {Args: []Arg{None}},
	"exec":        {DashDash: true},
	"evidence":    {Args: []Arg{EvidenceSub}},
	"recover":     {Args: []Arg{None}},
	"up":          {Args: []Arg{UpArg}, Variadic: true},
	"down":        {Args: []Arg{UpArg}, Variadic: true},
	"completions": {Args: []Arg{Shell}},
}

// Commands is the built-in subcommands, in help order.
var Commands = func() []Cmd {
	var out []Cmd
	for _, b := range commands.Builtin {
		c := positional[b.Name]
		c.Name, c.Summary = b.Name, b.Summary
		out = append(out, c)
	}
	return out
}()

// Aliases are the short names of commands, as the dispatcher has them.
var Aliases = commands.Aliases

// GlobalFlags come before the subcommand.
var GlobalFlags = []Flag{{Name: "root", Value: Dir, Takes: true}, {Name: "help"}, {Name: "version"}}

// Statuses are the values of --status.
var Statuses = []string{"running", "exited", "vanished"}

// StateSubs are state's sub-commands.
var StateSubs = []string{"get", "set", "delete", "keys"}

// EvidenceSubs are evidence's operations.
var EvidenceSubs = []string{"snapshot", "remove"}

// Shells are the shells `pty completions` writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// Lookup finds a command by name or alias.
func Lookup(name string) (Cmd, bool) {
	b, ok := commands.Lookup(name)
	if !ok {
		return Cmd{}, false
	}
	for _, c := range Commands {
		if c.Name == b.Name {
			return c, true
		}
	}
	return Cmd{}, false
}
