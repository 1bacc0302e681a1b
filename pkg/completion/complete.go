package completion

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/commands"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/ptyfile"
)

// Candidate is one completion, with an optional description that zsh and
// fish show next to it.
type Candidate struct {
	Value, Desc string
}

// Directive tells the shell what to add from its own machinery.
type Directive int

const (
	NoFiles  Directive = iota // only the candidates
	Files                     // also file names
	Dirs                      // also directory names
	Programs                  // also program names (run -- CMD)
)

// Source is where dynamic candidates come from. System reads the real
// registry and PATH; tests may use it against a temporary root too.
type Source interface {
	Sessions(root string) []Candidate // ids and unique display names
	Plugins() []Candidate             // pty-* programs that are not built in
	Root() string                     // the default registry root
	Flags(cmd string) []Flag          // every name of every flag of a built-in command
}

// Complete returns the candidates for the last of words, which are the
// command line after "pty" up to and including the word being completed
// (empty when the cursor is after a space).
func Complete(words []string, src Source) ([]Candidate, Directive) {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	prev := words[:len(words)-1]

	root := ""
	i := 0
	for i < len(prev) {
		w := prev[i]
		if w == "--root" || w == "-root" {
			if i+1 == len(prev) {
				return nil, Dirs // completing the root itself
			}
			root = prev[i+1]
			i += 2
			continue
		}
		if r, ok := strings.CutPrefix(w, "--root="); ok {
			root = r
			i++
			continue
		}
		break
	}
	if root == "" {
		root = src.Root()
	}
	if i == len(prev) {
		if strings.HasPrefix(cur, "-") {
			return filter(flagCandidates(GlobalFlags, false), cur), NoFiles
		}
		return filter(commandCandidates(src), cur), NoFiles
	}
	cmd, ok := Lookup(prev[i])
	if !ok {
		return nil, Files // a plugin: its arguments are its own business
	}
	flags := src.Flags(cmd.Name)
	rest := prev[i+1:]
	pos, afterDD := 0, -1
	var pending *Flag
	for j := 0; j < len(rest); j++ {
		w := rest[j]
		if afterDD >= 0 {
			afterDD++
			continue
		}
		if w == "--" {
			afterDD = 0
			continue
		}
		if len(w) > 1 && strings.HasPrefix(w, "-") {
			name, val, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f, ok := flagNamed(flags, name); ok && f.Takes && !hasValue {
				if j+1 == len(rest) {
					pending = &f
				} else if name == "root" {
					root = rest[j+1]
				}
				j++ // its value
			} else if name == "root" && hasValue {
				root = val
			}
			continue
		}
		pos++
	}
	if pending != nil {
		return values(pending.Value, cur, root, nil, src)
	}
	if afterDD >= 0 {
		if cmd.DashDash && afterDD == 0 {
			return nil, Programs
		}
		return nil, Files
	}
	if strings.HasPrefix(cur, "-") {
		c := flagCandidates(flags, true)
		if cmd.DashDash {
			c = append(c, Candidate{"--", "end of flags: the command follows"})
		}
		return filter(c, cur), NoFiles
	}
	if len(cmd.Args) == 0 {
		return nil, NoFiles
	}
	k := pos
	if k >= len(cmd.Args) {
		if !cmd.Variadic {
			return nil, NoFiles
		}
		k = len(cmd.Args) - 1
	}
	return values(cmd.Args[k], cur, root, positionals(flags, rest), src)
}

func flagNamed(flags []Flag, name string) (Flag, bool) {
	for _, f := range flags {
		if f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}

// positionals returns the non-flag words already typed.
func positionals(flags []Flag, rest []string) []string {
	var out []string
	for j := 0; j < len(rest); j++ {
		w := rest[j]
		if len(w) > 1 && strings.HasPrefix(w, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			if f, ok := flagNamed(flags, name); ok && f.Takes && !hasValue {
				j++
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

func values(a Arg, cur, root string, pos []string, src Source) ([]Candidate, Directive) {
	switch a {
	case Ref:
		return filter(src.Sessions(root), cur), NoFiles
	case Dir:
		return nil, Dirs
	case File:
		return nil, Files
	case Command:
		return nil, Programs
	case Status:
		return filter(words(Statuses), cur), NoFiles
	case Shell:
		return filter(words(Shells), cur), NoFiles
	case StateSub:
		return filter(words(StateSubs), cur), NoFiles
	case EvidenceSub:
		return filter(words(EvidenceSubs), cur), NoFiles
	case EventType:
		c := words(layout.EventTypes())
		c = append(c, Candidate{"user.", "a user event type"})
		return filter(c, cur), NoFiles
	case UpArg:
		return filter(upCandidates(pos), cur), Dirs
	}
	return nil, NoFiles
}

// upCandidates are the session names of the pty.toml that up/down would
// read: DIR/pty.toml when the first word names a directory with one, else
// ./pty.toml. Directories are offered by the shell alongside.
func upCandidates(pos []string) []Candidate {
	path, _, err := ptyfile.Find(pos)
	if err != nil {
		return nil
	}
	f, err := ptyfile.Load(path)
	if err != nil {
		return nil
	}
	var out []Candidate
	for _, s := range f.Sessions {
		out = append(out, Candidate{s.Key, s.Command})
	}
	return out
}

func words(ws []string) []Candidate {
	out := make([]Candidate, len(ws))
	for i, w := range ws {
		out[i] = Candidate{Value: w}
	}
	return out
}

func flagCandidates(fs []Flag, help bool) []Candidate {
	var out []Candidate
	for _, f := range fs {
		if len(f.Name) == 1 {
			out = append(out, Candidate{Value: "-" + f.Name})
		} else {
			out = append(out, Candidate{Value: "--" + f.Name})
		}
	}
	if help {
		out = append(out, Candidate{Value: "--help"})
	}
	return out
}

func commandCandidates(src Source) []Candidate {
	var out []Candidate
	for _, c := range Commands {
		out = append(out, Candidate{c.Name, c.Summary})
	}
	for _, a := range Aliases {
		out = append(out, Candidate{a.Name, "alias of " + a.Command})
	}
	out = append(out, src.Plugins()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

func filter(cs []Candidate, prefix string) []Candidate {
	out := cs[:0:0]
	for _, c := range cs {
		if strings.HasPrefix(c.Value, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// Write prints candidates one per line as "value<TAB>description" and a
// last line ":<directive>", the format the scripts read.
func Write(w io.Writer, cs []Candidate, d Directive) error {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(clean(c.Value))
		if c.Desc != "" {
			b.WriteString("\t" + clean(c.Desc))
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, ":%d\n", d)
	_, err := io.WriteString(w, b.String())
	return err
}

// clean keeps a candidate on one line.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// System is the Source of a real invocation.
type System struct{}

// Root resolves the registry the way every pty command does, without
// printing deprecation notices into the user's prompt.
func (System) Root() string {
	r, err := layout.ResolveRoot(os.Getenv)
	if err != nil {
		return ""
	}
	return r.Dir
}

// Sessions lists ids (described by their name and command) and the display
// names that resolve, that is, that exactly one session has. It reads only
// metadata files: no socket probes, so TAB stays instant.
func (System) Sessions(root string) []Candidate {
	if root == "" {
		return nil
	}
	ids, err := layout.At(root).IDs()
	if err != nil {
		return nil
	}
	var out []Candidate
	names := map[string][]string{}
	isID := map[string]bool{}
	for _, id := range ids {
		isID[id] = true
		m, err := layout.At(root).Metadata(id)
		if err != nil {
			continue
		}
		desc := m.DisplayCommand
		if m.DisplayName != nil && *m.DisplayName != "" {
			desc = *m.DisplayName + ": " + desc
			names[*m.DisplayName] = append(names[*m.DisplayName], id)
		}
		out = append(out, Candidate{id, desc})
	}
	for n, ids := range names {
		if len(ids) == 1 && !isID[n] {
			out = append(out, Candidate{n, "session " + ids[0]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

// Plugins lists pty-* programs beside the running pty and on PATH that are
// not built-in commands (pty-daemon is internal).
func (System) Plugins() []Candidate {
	var out []Candidate
	for _, name := range commands.Plugins() {
		out = append(out, Candidate{name, "plugin"})
	}
	return out
}

// Flags asks the built-in command's program for its flags (pkg/cli's
// describe), so completion offers exactly what the command parses. Only
// built-in commands are asked: a plugin run without arguments might do
// anything.
func (System) Flags(cmd string) []Flag {
	if _, ok := commands.Lookup(cmd); !ok {
		return nil
	}
	path, err := commands.Find(cmd)
	if err != nil {
		return nil
	}
	return Describe(path, nil)
}

// Describe runs the pkg/cli command at path with cli.DescribeEnv set and
// returns the flags it prints, nil if it does not answer so. env is the
// environment to run it in (nil: this process's).
func Describe(path string, env []string) []Flag {
	c := exec.Command(path)
	if env == nil {
		env = os.Environ()
	}
	c.Env = append(env, cli.DescribeEnv+"=1")
	out, err := c.Output()
	if err != nil {
		return nil
	}
	var flags []Flag
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		p := strings.Split(l, "\t")
		if len(p) != 3 || p[0] == "" || (p[1] != "0" && p[1] != "1") {
			return nil
		}
		flags = append(flags, Flag{Name: p[0], Takes: p[1] == "1", Value: valueKinds[p[2]]})
	}
	return flags
}
