// Package completion completes pty command lines for bash, zsh and fish.
// The shells' scripts are thin: each TAB runs `pty completions --complete
// WORDS...`, and Complete works out the candidates from one table of
// commands and flags (kept honest against every command's --help by a
// test), the sessions in the registry, and the pty-* plugins on PATH. One
// implementation means the three shells complete the same way.
package completion

// Arg is what a positional argument or a flag's value is.
type Arg int

const (
	None      Arg = iota // nothing to complete (free text, numbers)
	Ref                  // a session id or display name
	Dir                  // a directory
	File                 // a file
	Command              // a program on PATH (after run's --)
	Status               // running, exited, vanished
	EventType            // an event type for events --wait
	Shell                // bash, zsh, fish
	StateSub             // state's sub-commands
	UpArg                // up/down: a directory with a pty.toml, or a session name of ./pty.toml
)

// Flag is one flag of a command. Value is None for a boolean flag.
type Flag struct {
	Name  string
	Value Arg
	Takes bool // takes a value (even one we cannot complete)
}

func b(name string) Flag          { return Flag{Name: name} }
func v(name string, a Arg) Flag   { return Flag{Name: name, Value: a, Takes: true} }
func text(name string) Flag       { return Flag{Name: name, Takes: true} }
func refFlag(name string) Flag    { return v(name, Ref) }
func statusFlag(name string) Flag { return v(name, Status) }

// Cmd is one subcommand: its flags and its positional arguments. The last
// positional kind repeats when Variadic is set.
type Cmd struct {
	Name     string
	Summary  string
	Flags    []Flag
	Args     []Arg
	Variadic bool
	// DashDash: after "--" the words are a command line (run).
	DashDash bool
}

// Commands is the table of built-in subcommands, in help order.
var Commands = []Cmd{
	{Name: "run", Summary: "start a command in a new session (and attach to it)", DashDash: true,
		Flags: []Flag{b("d"), b("a"), b("e"), text("id"), text("name"), b("no-display-name"), text("tag"), text("env"),
			text("unset-env"), b("isolate-env"), v("cwd", Dir), text("rows"), text("cols"), b("permanent"),
			b("cleanup-on-clean-exit"), b("force")}},
	{Name: "attach", Summary: "attach to a session (Ctrl+\\ detaches)", Args: []Arg{Ref},
		Flags: []Flag{b("r"), b("auto-restart"), b("no-restart"), b("force"), text("history")}},
	{Name: "peek", Summary: "print a session's screen, or follow it read-only", Args: []Arg{Ref},
		Flags: []Flag{b("f"), b("plain"), b("full"), text("wait"), text("t")}},
	{Name: "send", Summary: "type text or keys into a session", Args: []Arg{Ref, None},
		Flags: []Flag{b("paste"), text("seq"), text("with-delay")}},
	{Name: "list", Summary: "list sessions (--json for scripts)",
		Flags: []Flag{b("json"), b("tags"), text("filter-tag"), statusFlag("status"), text("older-than"), text("newer-than"), b("summary")}},
	{Name: "stats", Summary: "show size, clients and resource use of sessions", Args: []Arg{Ref},
		Flags: []Flag{b("json"), b("all")}},
	{Name: "kill", Summary: "stop a session and everything it started; keep its record", Args: []Arg{Ref}},
	{Name: "rm", Summary: "remove a finished session's files", Args: []Arg{Ref}},
	{Name: "restart", Summary: "start a session again from its stored settings", Args: []Arg{Ref},
		Flags: []Flag{b("y"), b("yes"), b("force")}},
	{Name: "tag", Summary: "show or change a session's tags", Args: []Arg{Ref, None}, Variadic: true,
		Flags: []Flag{text("rm")}},
	{Name: "tag-multi", Summary: "show or change the tags of several sessions", Args: []Arg{Ref}, Variadic: true,
		Flags: []Flag{b("all"), text("filter-tag"), b("json"), text("rm"), b("y"), b("yes")}},
	{Name: "rename", Summary: "show, set or clear a session's display name", Args: []Arg{Ref, None},
		Flags: []Flag{b("clear"), b("show")}},
	{Name: "state", Summary: "get, set and delete keys of a session's JSON state", Args: []Arg{StateSub, Ref, None},
		Flags: []Flag{refFlag("session")}},
	{Name: "emit", Summary: "append a user.* event to a session's event log", Args: []Arg{Ref, None},
		Flags: []Flag{text("json"), text("text")}},
	{Name: "events", Summary: "follow or print a session's events", Args: []Arg{Ref},
		Flags: []Flag{b("all"), b("json"), b("recent"), text("t"), text("timeout"), v("wait", EventType)}},
	{Name: "metadata", Summary: "patch a session's display name and tags as JSON", Args: []Arg{None},
		Flags: []Flag{refFlag("id")}},
	{Name: "gc", Summary: "reconcile the registry: respawn permanent sessions, reap dead ones",
		Flags: []Flag{b("n"), b("dry-run"), b("json"), text("fast-fail-window"), text("fast-fail-limit"), text("idle-days"),
			text("keep-max-age"), text("interval"), v("log", File), b("print-launchd-plist")}},
	{Name: "up", Summary: "start the sessions a pty.toml declares", Args: []Arg{UpArg}, Variadic: true},
	{Name: "down", Summary: "stop the sessions a pty.toml declares", Args: []Arg{UpArg}, Variadic: true},
	{Name: "ui", Summary: "the interactive session picker (also: pty with no arguments)",
		Flags: []Flag{text("filter-tag"), b("preselect-new"), b("force")}},
	{Name: "web", Summary: "watch (and with --write, drive) sessions from a browser",
		Flags: []Flag{text("listen"), b("write")}},
	{Name: "completions", Summary: "print a shell completion script (bash, zsh, fish)", Args: []Arg{Shell}},
}

// Every command takes --root DIR anywhere on its line (pkg/cli adds it).
func init() {
	for i := range Commands {
		Commands[i].Flags = append(Commands[i].Flags, v("root", Dir))
	}
}

// Aliases map short names to commands, as the dispatcher does.
var Aliases = map[string]string{"ls": "list", "a": "attach", "i": "ui", "interactive": "ui", "remove": "rm"}

// GlobalFlags come before the subcommand.
var GlobalFlags = []Flag{v("root", Dir), b("help"), b("version")}

// Statuses are the values of --status.
var Statuses = []string{"running", "exited", "vanished"}

// StateSubs are state's sub-commands.
var StateSubs = []string{"get", "set", "delete", "keys"}

// Shells are the shells `pty completions` writes scripts for.
var Shells = []string{"bash", "zsh", "fish"}

// Lookup finds a command by name or alias.
func Lookup(name string) (Cmd, bool) {
	if a, ok := Aliases[name]; ok {
		name = a
	}
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Cmd{}, false
}
