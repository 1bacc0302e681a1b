// Package state is "pty state": read and change the JSON state bag kept
// in a session's metadata, for scripts and agents that coordinate through
// pty. cmd/pty-state only parses the command line and calls Run.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/jsonlite"
	"github.com/ptyorg/pty/internal/jsonx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

const usage = `pty state get [REF] [KEY]
       pty state set [REF] KEY [JSON|-]
       pty state delete [REF] KEY
       pty state keys [REF]`

// Options are state's flags and arguments.
type Options struct {
	Session string   // --session REF
	Args    []string // ACTION [REF] [KEY] [JSON]
}

// Command declares state's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("state", usage)
	c.Long = `Each session carries a bag of JSON values ("state" in its metadata) that
scripts can share: set a key from one process, read it or wait for its
state.set event (pty events --wait state.set) in another.

  get [REF]        print the whole bag as a JSON object
  get [REF] KEY    print one value as compact JSON (exit 1 when not set)
  set [REF] KEY J  store the JSON value J; without J (or with -) it is read
                   from stdin. Invalid JSON is refused: quote strings, as in
                   pty state set phase '"build"'
  delete [REF] KEY remove a key (not an error when it is not set)
  keys [REF]       list the keys, one per line

REF may be left out inside a session ($PTY_SESSION set) and means that
session; there the first argument is the KEY. Outside a session the first
argument is always REF. --session REF names the session explicitly anywhere.

Every change appends one event: state.set {key, value} (the value only when
its compact JSON is at most 4096 bytes; larger values give valueBytes
instead) or state.delete {key}. A value that starts with "-" (a negative
number) goes after "--".

Limits: a value is at most 16 MiB of compact JSON and nests arrays and
objects at most 32 levels deep; a session's whole state is at most 16 MiB
in at most 1024 keys; a key is at most 256 bytes. A change past a limit is
refused and writes nothing.

Examples:
  pty state set web phase '"ready"'
  echo '{"port": 8080}' | pty state set web config
  pty state get web config
  pty state keys web`
	c.Flags.StringVar(&o.Session, "session", "", "the session `REF` (instead of a positional REF)")
	c.Values("session", cli.ValueRef)
	return c
}

// Run does the action o.Args names against io.
func Run(o Options, cio cli.IO) error {
	if len(o.Args) == 0 {
		return errors.New("no action given: use get, set, delete or keys (see 'pty state --help')")
	}
	action, args := o.Args[0], o.Args[1:]
	inside := cio.Session != ""
	// split tells REF from the rest: --session names the session, or inside
	// a session the argument count says whether REF was left out.
	split := func(min, max int) (ref string, rest []string, err error) {
		if o.Session != "" {
			if len(args) < min || len(args) > max {
				return "", nil, argCount(action)
			}
			return o.Session, args, nil
		}
		switch {
		case inside && len(args) >= min && len(args) <= max:
			return "", args, nil
		case len(args) >= min+1 && len(args) <= max+1:
			return args[0], args[1:], nil
		case !inside && len(args) >= min && len(args) <= max:
			return "", nil, fmt.Errorf("not inside a pty session, so give the session first: %s", forms[action])
		}
		return "", nil, argCount(action)
	}
	root := cio.Root
	switch action {
	case "set", "delete", "del", "rm":
		if err := rootdir.CheckWritable(root); err != nil {
			return err
		}
	}
	resolve := func(ref string) (layout.Session, error) {
		s, err := cli.ResolveOrCurrent(root, ref, cio.Session, "give a session id or name")
		if err != nil {
			return s, err
		}
		return s, s.DamagedErr()
	}
	w := cio.Out
	switch action {
	case "get":
		ref, rest, err := split(0, 1)
		if err != nil {
			return err
		}
		s, err := resolve(ref)
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			bag := s.Meta.State
			if bag == nil {
				bag = map[string]json.RawMessage{}
			}
			// Indented a few levels only: a deep value that another
			// writer left would otherwise print indentation quadratic
			// in its depth.
			c, err := json.Marshal(bag)
			if err != nil {
				return err
			}
			b, err := jsonlite.AppendIndentMax(nil, c, "", "  ", 8)
			if err != nil {
				return err
			}
			fmt.Fprintln(w, string(b))
			return nil
		}
		key := rest[0]
		if err := layout.ValidateStateKey(key); err != nil {
			return err
		}
		v, ok := s.Meta.State[key]
		if !ok {
			return fmt.Errorf("state key %q is not set on session %q (see 'pty state keys %s')", key, s.Name(), s.ID)
		}
		cv, err := jsonx.Compact("state value", v)
		if err != nil {
			return err
		}
		fmt.Fprintln(w, string(cv))
	case "set":
		ref, rest, err := split(1, 2)
		if err != nil {
			return err
		}
		key := rest[0]
		if err := layout.ValidateStateKey(key); err != nil {
			return err
		}
		var value []byte
		if len(rest) == 2 && rest[1] != "-" {
			value = []byte(rest[1])
		} else if value, err = readStdin(cio, key); err != nil {
			return err
		}
		v, err := jsonx.Compact("state value", value)
		if err != nil {
			return err
		}
		s, err := resolve(ref)
		if err != nil {
			return err
		}
		_, _, err = layout.At(root).StateSet(s.ID, key, v)
		return err
	case "delete", "del", "rm":
		ref, rest, err := split(1, 1)
		if err != nil {
			return err
		}
		if err := layout.ValidateStateKey(rest[0]); err != nil {
			return err
		}
		s, err := resolve(ref)
		if err != nil {
			return err
		}
		_, _, err = layout.At(root).StateDelete(s.ID, rest[0])
		return err
	case "keys":
		ref, _, err := split(0, 0)
		if err != nil {
			return err
		}
		s, err := resolve(ref)
		if err != nil {
			return err
		}
		for _, k := range sortedKeys(s.Meta.State) {
			fmt.Fprintln(w, k)
		}
	default:
		return unknownAction(action)
	}
	return nil
}

var forms = map[string]string{
	"get":    "pty state get REF [KEY]",
	"set":    "pty state set REF KEY [JSON]",
	"delete": "pty state delete REF KEY",
	"del":    "pty state delete REF KEY",
	"rm":     "pty state delete REF KEY",
	"keys":   "pty state keys REF",
}

func unknownAction(action string) error {
	return fmt.Errorf("unknown action %q: use get, set, delete or keys (see 'pty state --help')", action)
}

func argCount(action string) error {
	f, ok := forms[action]
	if !ok {
		return unknownAction(action)
	}
	return fmt.Errorf("wrong number of arguments: %s (REF may be left out inside a session)", f)
}

// readStdin reads a value from stdin, refusing a terminal: a user who forgot
// the value would otherwise stare at a command that waits for input.
func readStdin(cio cli.IO, key string) ([]byte, error) {
	if cio.In == nil || term.IsTerminal(int(cio.In.Fd())) {
		return nil, fmt.Errorf("no value given for %q: pass it as an argument (pty state set ... %s '\"text\"') or pipe JSON on stdin", key, key)
	}
	b, err := io.ReadAll(io.LimitReader(cio.In, layout.MaxStateValue+1<<20))
	if err != nil {
		return nil, fmt.Errorf("read the value from stdin: %v", err)
	}
	return b, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
