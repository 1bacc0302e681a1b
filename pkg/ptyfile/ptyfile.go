// Package ptyfile reads pty.toml, the file that declares a project's
// sessions for `pty up` and `pty down`, and says how a declared session maps
// to launch settings and tags. gc uses it too: when it respawns a permanent
// session that came from a pty.toml it re-reads the file, so edits to the
// command, cwd, env or tags take effect without a manual `pty up`.
//
// The format:
//
//	prefix = "myapp"            # optional; display names default to <prefix>-<key>
//
//	[sessions.web]
//	command = "npm run dev"     # required; run with /bin/sh -c
//	cwd = "frontend"            # optional; relative to the file's directory (the default)
//	id = "myapp-web"            # optional stable session id
//	display_name = "web"        # optional
//	tags = { strategy = "permanent" }
//	env = { PORT = "3000" }
//	scrollback = 50000          # optional; lines, 0 to 1000000 (default: $PTY_SCROLLBACK, else 10000)
//
// A session belongs to its file through two tags: ptyfile=<absolute path of
// the file> and ptyfile.session=<key>. A third, ptyfile.tags, lists the tag
// keys the file declared, so `up` can delete a tag that was removed from the
// file without touching tags someone added by hand.
//
// This package imports no spawn or daemon code, so any command can use it
// without an import cycle.
package ptyfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/textdist"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"github.com/ptyorg/pty/pkg/layout"
)

// FileName is the name `pty up` looks for in a directory.
const FileName = "pty.toml"

// Shell runs every declared command, so a command line may use pipes,
// variables and && like it would in a Makefile or Procfile.
const Shell = "/bin/sh"

// File is a parsed pty.toml.
type File struct {
	Path     string // absolute path of the file
	Dir      string // its directory: the default cwd, and the base of relative ones
	Prefix   string // the prefix of default display names
	Sessions []Spec // in the order the file declares them
	display  string // the path as the caller gave it, for error messages
}

// Spec is one [sessions.<key>] table, validated and with cwd resolved.
type Spec struct {
	Key         string
	Command     string            // the command line, run with /bin/sh -c
	ID          string            // the stable id, or "" for a random one
	DisplayName string            // never empty: defaults to <prefix>-<key>
	Cwd         string            // absolute
	Tags        map[string]string // as declared (never nil)
	Env         map[string]string // extra environment (never nil)
	Scrollback  *int              // lines of scrollback, nil when not declared
	Line        int               // where the table starts, for messages
}

// Launch is what starting a Spec takes, in the shape of the launch settings
// stored in session metadata (and of spawn.Options), without importing spawn.
type Launch struct {
	ID             string // "" means a random id
	DisplayName    string
	Command        string   // Shell
	Args           []string // "-c", the command line
	DisplayCommand string   // the command line as written in the file
	Cwd            string
	ExtraEnv       map[string]string
	Tags           map[string]string // declared tags plus the ptyfile identity tags
	Scrollback     *int              // nil when the file does not say
}

// Error is a problem in a pty.toml, located at a line when the line is known.
// It prints as `pty.toml:12: sessions.web: unknown field "comand"`.
type Error struct {
	File string // the path as given
	Line int    // 0 when unknown
	Key  string // the table or key at fault, such as "sessions.web"; may be empty
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Sentence: the message begins with the file and line it is about, as a
// compiler's does, so commands print it without "pty: " (cli.Message).
func (e *Error) Sentence() bool { return true }

// Load reads and validates the pty.toml at path. Errors are *Error values
// naming the file, the line and the field; a missing file is an error that
// satisfies errors.Is(err, fs.ErrNotExist).
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse validates data as the pty.toml at path (made absolute for the
// identity tag and for resolving cwd).
func Parse(path string, data []byte) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, errs.Sentence(fmt.Sprintf("pty.toml %s: %v", path, err), err)
	}
	f := &File{Path: abs, Dir: filepath.Dir(abs), display: path}
	p := &parser{f: f}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return f, nil
}

// ErrorAt makes an error located at a session's table, for problems found
// after parsing (a cwd that does not exist when `up` runs).
func (f *File) ErrorAt(s Spec, format string, args ...any) *Error {
	return &Error{File: f.display, Line: s.Line, Key: sessionName(s.Key), Msg: fmt.Sprintf(format, args...)}
}

// Session returns the declared session with the given key.
func (f *File) Session(key string) (Spec, bool) {
	for _, s := range f.Sessions {
		if s.Key == key {
			return s, true
		}
	}
	return Spec{}, false
}

// Keys lists the session keys in file order.
func (f *File) Keys() []string {
	out := make([]string, len(f.Sessions))
	for i, s := range f.Sessions {
		out[i] = s.Key
	}
	return out
}

// Select returns the sessions named by keys, in file order, or every session
// when keys is empty. An unknown key is an error that lists the known ones.
func (f *File) Select(keys []string) ([]Spec, error) {
	if len(keys) == 0 {
		return f.Sessions, nil
	}
	want := map[string]bool{}
	for _, k := range keys {
		if _, ok := f.Session(k); !ok {
			return nil, errs.Sentence(fmt.Sprintf("%s declares no session %q (it declares: %s)", f.display, k, strings.Join(f.Keys(), ", ")), nil)
		}
		want[k] = true
	}
	var out []Spec
	for _, s := range f.Sessions {
		if want[s.Key] {
			out = append(out, s)
		}
	}
	return out, nil
}

// Launch converts a spec of this file into launch settings.
func (f *File) Launch(s Spec) Launch {
	return Launch{
		ID:             s.ID,
		DisplayName:    s.DisplayName,
		Command:        Shell,
		Args:           []string{"-c", s.Command},
		DisplayCommand: s.Command,
		Cwd:            s.Cwd,
		ExtraEnv:       copyMap(s.Env),
		Tags:           f.Tags(s),
		Scrollback:     s.Scrollback,
	}
}

// Tags returns the full tag set a session of this spec should carry: the
// declared tags plus the identity tags.
func (f *File) Tags(s Spec) map[string]string {
	t := copyMap(s.Tags)
	t[layout.TagPtyfile] = f.Path
	t[layout.TagPtyfileSession] = s.Key
	t[layout.TagPtyfileTags] = strings.Join(sortedKeys(s.Tags), ",")
	return t
}

// Owns reports whether the session with these tags was started from spec s
// of this file.
func (f *File) Owns(tags map[string]string, s Spec) bool {
	return tags[layout.TagPtyfile] == f.Path && tags[layout.TagPtyfileSession] == s.Key
}

// Origin returns the pty.toml path and session key a session was started
// from, or ok=false when it did not come from a pty.toml.
func Origin(tags map[string]string) (path, key string, ok bool) {
	path, key = tags[layout.TagPtyfile], tags[layout.TagPtyfileSession]
	return path, key, path != "" && key != ""
}

// ForSession re-reads the pty.toml a session came from and returns its
// current declaration, for gc's respawn. ok is false when the session did
// not come from a pty.toml; an error means the file is gone, broken, or no
// longer declares the session, and the caller should fall back to the
// session's stored launch settings.
func ForSession(tags map[string]string) (f *File, s Spec, ok bool, err error) {
	path, key, ok := Origin(tags)
	if !ok {
		return nil, Spec{}, false, nil
	}
	f, err = Load(path)
	if err != nil {
		return nil, Spec{}, true, err
	}
	s, found := f.Session(key)
	if !found {
		return f, Spec{}, true, errs.Sentence(fmt.Sprintf("%s no longer declares session %q", path, key), nil)
	}
	return f, s, true, nil
}

// SyncTags computes the tags a running session should have after `up`: the
// declared tags set or changed, tags the file declared before (per the old
// ptyfile.tags) but no longer declares deleted, gc bookkeeping cleared, and
// every other tag left alone. changes describes what differs among the
// tags the file declares or declared, like "+port=3000", "-debug", for the
// `(already running, updated tags: …)` line;
// changed is false when next equals current and nothing needs writing.
func SyncTags(current, want map[string]string) (next map[string]string, changes []string, changed bool) {
	next = copyMap(current)
	var oldManaged []string
	if v := current[layout.TagPtyfileTags]; v != "" {
		oldManaged = strings.Split(v, ",")
	}
	for _, k := range oldManaged {
		if _, still := want[k]; !still {
			delete(next, k)
		}
	}
	// gc's bookkeeping is cleared so a session that was flapping gets a
	// fresh start once the file has been fixed.
	for _, k := range layout.FastFailTags() {
		if _, declared := want[k]; !declared {
			delete(next, k)
		}
	}
	for k, v := range want {
		next[k] = v
	}
	for _, k := range sortedKeys(union(current, next)) {
		ov, had := current[k]
		nv, has := next[k]
		switch {
		case k == layout.TagPtyfileTags || k == layout.TagPtyfile || k == layout.TagPtyfileSession:
			// Identity bookkeeping; its changes are implied by the others.
		case !declared(k, want, oldManaged):
			// gc's bookkeeping, cleared above: the file never said
			// it, so reporting it would only be noise on every up.
		case had && !has:
			changes = append(changes, "-"+k)
		case has && (!had || ov != nv):
			changes = append(changes, "+"+k+"="+nv)
		}
	}
	return next, changes, !equalMaps(current, next)
}

// declared says the file declares tag k now (want) or did before (old).
func declared(k string, want map[string]string, old []string) bool {
	if _, ok := want[k]; ok {
		return true
	}
	return slices.Contains(old, k)
}

// Find works out which pty.toml `up`/`down` mean and which session keys:
// the first argument is a directory (or a .toml file) only if it holds a
// pty.toml; otherwise every argument is a session key and the file is
// ./pty.toml.
func Find(args []string) (path string, keys []string, err error) {
	if len(args) > 0 {
		a := args[0]
		if fi, err := os.Stat(filepath.Join(a, FileName)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(a, FileName), args[1:], nil
		}
		if strings.HasSuffix(a, ".toml") {
			if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
				return a, args[1:], nil
			}
			return "", nil, fmt.Errorf("%s: no such file: pass a pty.toml that exists, or its directory", a)
		}
	}
	if _, err := os.Stat(FileName); err != nil {
		cwd, _ := os.Getwd()
		if len(args) > 0 {
			return "", nil, fmt.Errorf("no %s in %s, and %q is not a directory with one: run this where %s is, or pass its directory first", FileName, cwd, args[0], FileName)
		}
		return "", nil, fmt.Errorf("no %s in %s: run this where %s is, or pass its directory", FileName, cwd, FileName)
	}
	return FileName, args, nil
}

// parser turns the generic TOML tree into a File. go-toml decodes the values
// and reports TOML's own errors at their line; the decoded maps do not say
// where a key was written, so the lines of keys come from go-toml's syntax
// tree (package unstable, which go.mod pins), indexed by keyPos.
type parser struct {
	f *File
}

// keyPos is a key of the file: the line where it first appears, and the keys
// under it in the order the file first names them.
type keyPos struct {
	line  int
	sub   map[string]*keyPos
	order []string
}

// indexKeys walks data's syntax tree and records where each key appears.
// Keys of arrays of tables are not recorded: no part of a pty.toml is an
// array, so an error is never about a key inside one.
func indexKeys(data []byte) *keyPos {
	root := &keyPos{}
	var p unstable.Parser
	p.Reset(data)
	table := root
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			table = root.add(&p, e.Key())
		case unstable.ArrayTable:
			root.add(&p, e.Key())
			table = &keyPos{}
		case unstable.KeyValue:
			table.addKeyValue(&p, e)
		}
	}
	return root
}

// add records a possibly dotted key under k and returns its last part.
func (k *keyPos) add(p *unstable.Parser, key unstable.Iterator) *keyPos {
	for key.Next() {
		name := string(key.Node().Data)
		c := k.sub[name]
		if c == nil {
			c = &keyPos{line: p.Shape(key.Node().Raw).Start.Line}
			if k.sub == nil {
				k.sub = map[string]*keyPos{}
			}
			k.sub[name] = c
			k.order = append(k.order, name)
		}
		k = c
	}
	return k
}

func (k *keyPos) addKeyValue(p *unstable.Parser, kv *unstable.Node) {
	c := k.add(p, kv.Key())
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			c.addKeyValue(p, it.Node())
		}
	}
}

// get returns the position of the sub-key name; never nil, so a lookup
// that misses yields line 0 (unknown) rather than a crash.
func (k *keyPos) get(name string) *keyPos {
	if c := k.sub[name]; c != nil {
		return c
	}
	return &keyPos{}
}

// ordered returns m's keys in the order the file declares them, so the first
// error reported is the first in the file.
func (k *keyPos) ordered(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for _, name := range k.order {
		if _, ok := m[name]; ok {
			out = append(out, name)
		}
	}
	if len(out) < len(m) {
		// Keys the index missed (it should miss none) are still checked.
		var rest []string
		for name := range m {
			if k.sub[name] == nil {
				rest = append(rest, name)
			}
		}
		sort.Strings(rest)
		out = append(out, rest...)
	}
	return out
}

func (p *parser) errAt(line int, key, format string, args ...any) *Error {
	return &Error{File: p.f.display, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse(data []byte) error {
	var top map[string]any
	if err := toml.Unmarshal(data, &top); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return &Error{File: p.f.display, Line: line, Msg: "invalid TOML: " + strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return &Error{File: p.f.display, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	pos := indexKeys(data)
	for _, k := range pos.ordered(top) {
		v, kp := top[k], pos.get(k)
		switch k {
		case "prefix":
			s, err := p.str(v, kp.line, "prefix")
			if err != nil {
				return err
			}
			p.f.Prefix = s
		case "sessions":
			if err := p.sessions(v, kp); err != nil {
				return err
			}
		default:
			hint := ""
			switch g := suggestField(k, []string{"prefix", "sessions"}, topByMeaning); {
			case g == "sessions":
				hint = "did you mean [sessions.<name>]? "
			case g != "":
				hint = fmt.Sprintf("did you mean %q? ", g)
			case slices.Contains(sessionFields, k) || fieldsByMeaning[k] != "":
				hint = "a session's fields go in its [sessions.<name>] table; "
			}
			return p.errAt(kp.line, "", "unknown field %q (%sa pty.toml has prefix and [sessions.<name>] tables)", k, hint)
		}
	}
	if len(p.f.Sessions) == 0 {
		return p.errAt(0, "", "declares no sessions: add a [sessions.<name>] table with a command")
	}
	return p.checkIDs()
}

func (p *parser) str(v any, line int, key string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", p.errAt(line, key, "must be a string, not %s", tomlType(v))
	}
	return s, nil
}

func (p *parser) table(v any, line int, key string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, p.errAt(line, key, "must be a table, not %s", tomlType(v))
	}
	return m, nil
}

func (p *parser) sessions(v any, pos *keyPos) error {
	m, err := p.table(v, pos.line, "sessions")
	if err != nil {
		return err
	}
	for _, key := range pos.ordered(m) {
		s, err := p.session(key, m[key], pos.get(key))
		if err != nil {
			return err
		}
		p.f.Sessions = append(p.f.Sessions, s)
	}
	return nil
}

// session validates one [sessions.<key>] table. Its line is where the file
// first names it: its header, or the header of a sub-table
// ([sessions.web.env]) that implies it.
func (p *parser) session(key string, v any, pos *keyPos) (Spec, error) {
	name := sessionName(key)
	line := pos.line
	fields, err := p.table(v, line, name)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Key: key, Line: line, Tags: map[string]string{}, Env: map[string]string{}}
	var haveCommand bool
	for _, fk := range pos.ordered(fields) {
		fv, fpos := fields[fk], pos.get(fk)
		fl := fpos.line
		switch fk {
		case "command":
			if s.Command, err = p.str(fv, fl, name+".command"); err != nil {
				return s, err
			}
			if strings.TrimSpace(s.Command) == "" {
				return s, p.errAt(fl, name, "command is empty: give the command line to run")
			}
			if strings.IndexByte(s.Command, 0) >= 0 {
				return s, p.errAt(fl, name, "command contains a NUL byte: remove it (no program can receive one)")
			}
			haveCommand = true
		case "id":
			if s.ID, err = p.str(fv, fl, name+".id"); err != nil {
				return s, err
			}
			if err := layout.ValidateID(s.ID); err != nil {
				return s, p.errAt(fl, name, "bad id: %v", err)
			}
		case "display_name":
			if s.DisplayName, err = p.str(fv, fl, name+".display_name"); err != nil {
				return s, err
			}
			if err := layout.ValidateDisplayName(s.DisplayName); err != nil {
				return s, p.errAt(fl, name, "bad display_name: %v", err)
			}
		case "cwd":
			cwd, err := p.str(fv, fl, name+".cwd")
			if err != nil {
				return s, err
			}
			if cwd == "" {
				return s, p.errAt(fl, name, "cwd is empty: leave it out to use the file's directory")
			}
			if strings.IndexByte(cwd, 0) >= 0 {
				return s, p.errAt(fl, name, "cwd contains a NUL byte: remove it")
			}
			s.Cwd = p.resolveCwd(cwd)
		case "tags":
			if s.Tags, err = p.stringMap(fv, fpos, name+".tags", true); err != nil {
				return s, err
			}
		case "env":
			if s.Env, err = p.stringMap(fv, fpos, name+".env", false); err != nil {
				return s, err
			}
		case "scrollback":
			n, ok := fv.(int64)
			if !ok {
				return s, p.errAt(fl, name, "scrollback must be a number of lines, not %s", tomlType(fv))
			}
			if n < 0 || n > launchconfig.MaxScrollback {
				return s, p.errAt(fl, name, "scrollback %d is out of range: give a number of lines from 0 to %d", n, launchconfig.MaxScrollback)
			}
			v := int(n)
			s.Scrollback = &v
		default:
			hint := ""
			if g := suggestField(fk, sessionFields, fieldsByMeaning); g != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", g)
			} else {
				hint = " (known fields: " + strings.Join(sessionFields, ", ") + ")"
			}
			return s, p.errAt(fl, name, "unknown field %q%s", fk, hint)
		}
	}
	if !haveCommand {
		return s, p.errAt(line, name, "missing command: add command = \"...\" (it runs with /bin/sh -c)")
	}
	if s.Cwd == "" {
		s.Cwd = p.f.Dir
	}
	if s.DisplayName == "" {
		s.DisplayName = p.defaultName(key)
		if err := layout.ValidateDisplayName(s.DisplayName); err != nil {
			return s, p.errAt(line, name, "the default display name %q is not usable (%v): set display_name", s.DisplayName, err)
		}
	}
	return s, nil
}

// sessionName is how messages name a session's table: sessions.web, or
// sessions."my web" for a key that TOML must quote.
func sessionName(key string) string {
	quote := key == "" || strings.ContainsFunc(key, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	})
	if quote {
		return "sessions." + strconv.Quote(key)
	}
	return "sessions." + key
}

var sessionFields = []string{"command", "cwd", "display_name", "env", "id", "scrollback", "tags"}

// defaultName is <prefix>-<key>; without a prefix, the directory's name
// stands in for it, so sessions of two projects with a "web" session stay
// distinguishable in lists.
func (p *parser) defaultName(key string) string {
	prefix := p.f.Prefix
	if prefix == "" {
		prefix = filepath.Base(p.f.Dir)
	}
	return prefix + "-" + key
}

func (p *parser) resolveCwd(cwd string) string {
	if cwd == "~" || strings.HasPrefix(cwd, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			cwd = filepath.Join(home, cwd[1:])
		}
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(p.f.Dir, cwd)
	}
	return filepath.Clean(cwd)
}

// stringMap decodes a table of strings. Tags also accept booleans and
// numbers (keep = true reads naturally), stored as their TOML spelling.
func (p *parser) stringMap(v any, pos *keyPos, key string, tags bool) (map[string]string, error) {
	m, err := p.table(v, pos.line, key)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(m))
	for _, k := range pos.ordered(m) {
		fl := pos.get(k).line
		var s string
		switch x := m[k].(type) {
		case string:
			s = x
		case bool:
			if !tags {
				return nil, p.errAt(fl, key, "%s must be a string (quote it: %s = \"%v\")", k, k, x)
			}
			s = strconv.FormatBool(x)
		case int64:
			if !tags {
				return nil, p.errAt(fl, key, "%s must be a string (quote it: %s = \"%v\")", k, k, x)
			}
			s = strconv.FormatInt(x, 10)
		default:
			return nil, p.errAt(fl, key, "%s must be a string, not %s", k, tomlType(x))
		}
		if tags {
			if err := checkTagKey(k); err != nil {
				return nil, p.errAt(fl, key, "%v", err)
			}
		} else if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, p.errAt(fl, key, "environment variable name %q is not valid: it must be non-empty without '=' ", k)
		}
		if tags {
			if err := layout.ValidateTagValue(k, s); err != nil {
				return nil, p.errAt(fl, key, "%v", err)
			}
		} else if strings.ContainsRune(s, 0) {
			return nil, p.errAt(fl, key, "%s contains a NUL byte: remove it (no program can receive one)", k)
		}
		out[k] = s
	}
	return out, nil
}

func checkTagKey(k string) error {
	if err := layout.ValidateTagKey(k); err != nil {
		return err
	}
	switch {
	case k == layout.TagPtyfile || strings.HasPrefix(k, layout.TagPtyfile+"."):
		return fmt.Errorf("tag %q is reserved: pty sets the ptyfile tags itself", k)
	case strings.Contains(k, ","):
		// ptyfile.tags lists the declared keys separated by commas.
		return fmt.Errorf("tag key %q may not contain ','", k)
	}
	return nil
}

// checkIDs refuses two sessions with the same explicit id: the second would
// always fail to start with "already in use".
func (p *parser) checkIDs() error {
	seen := map[string]string{}
	for _, s := range p.f.Sessions {
		if s.ID == "" {
			continue
		}
		if other, dup := seen[s.ID]; dup {
			return p.errAt(s.Line, sessionName(s.Key), "bad id: %q is also the id of sessions.%s; ids must be unique", s.ID, other)
		}
		seen[s.ID] = s.Key
	}
	return nil
}

func tomlType(x any) string {
	switch x.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	default:
		return "a date or time"
	}
}

// closest returns the candidate within edit distance 2 of s, if any.
func closest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := textdist.Levenshtein(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func union(a, b map[string]string) map[string]string {
	out := copyMap(a)
	for k, v := range b {
		out[k] = v
	}
	return out
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
