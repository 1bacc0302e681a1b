// Command pty-state reads and changes the JSON state bag kept in a
// session's metadata, for scripts and agents that coordinate through pty.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/jsonlite"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

const usage = `pty state get [REF] [KEY]
       pty state set [REF] KEY [JSON|-]
       pty state delete [REF] KEY
       pty state keys [REF]`

func main() {
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
	session := c.Flags.String("session", "", "the session `REF` (instead of a positional REF)")
	c.Values("session", cli.ValueRef)
	args := c.Parse(os.Args[1:])
	if len(args) == 0 {
		cli.Fatalf("no action given: use get, set, delete or keys (see 'pty state --help')")
	}
	action, args := args[0], args[1:]
	inside := os.Getenv("PTY_SESSION") != ""
	// split tells REF from the rest: --session names the session, or inside
	// a session the argument count says whether REF was left out.
	split := func(min, max int) (ref string, rest []string) {
		if *session != "" {
			if len(args) < min || len(args) > max {
				argCount(action)
			}
			return *session, args
		}
		switch {
		case inside && len(args) >= min && len(args) <= max:
			return "", args
		case len(args) >= min+1 && len(args) <= max+1:
			return args[0], args[1:]
		case !inside && len(args) >= min && len(args) <= max:
			cli.Fatalf("not inside a pty session, so give the session first: %s", forms[action])
		}
		argCount(action)
		return "", nil
	}
	root := cli.Root()
	switch action {
	case "set", "delete", "del", "rm":
		cli.Check(layout.CheckWritableRoot(root))
	}
	switch action {
	case "get":
		ref, rest := split(0, 1)
		s := cli.ResolveOrCurrent(root, ref, "give a session id or name")
		cli.Check(s.DamagedErr())
		if len(rest) == 0 {
			bag := s.Meta.State
			if bag == nil {
				bag = map[string]json.RawMessage{}
			}
			// Indented a few levels only: a deep value that another
			// writer left would otherwise print indentation quadratic
			// in its depth.
			c, err := json.Marshal(bag)
			cli.Check(err)
			b, err := jsonlite.AppendIndentMax(nil, c, "", "  ", 8)
			cli.Check(err)
			fmt.Println(string(b))
			return
		}
		key := rest[0]
		cli.Check(layout.ValidateStateKey(key))
		v, ok := s.Meta.State[key]
		if !ok {
			cli.Fatalf("state key %q is not set on session %q (see 'pty state keys %s')", key, s.Name(), s.ID)
		}
		cv, err := layout.CompactJSON("state value", v)
		cli.Check(err)
		fmt.Println(string(cv))
	case "set":
		ref, rest := split(1, 2)
		key := rest[0]
		cli.Check(layout.ValidateStateKey(key))
		var value []byte
		if len(rest) == 2 && rest[1] != "-" {
			value = []byte(rest[1])
		} else {
			value = readStdin(key)
		}
		v, err := layout.CompactJSON("state value", value)
		cli.Check(err)
		s := cli.ResolveOrCurrent(root, ref, "give a session id or name")
		cli.Check(s.DamagedErr())
		_, _, err = layout.StateSet(root, s.ID, key, v)
		cli.Check(err)
	case "delete", "del", "rm":
		ref, rest := split(1, 1)
		cli.Check(layout.ValidateStateKey(rest[0]))
		s := cli.ResolveOrCurrent(root, ref, "give a session id or name")
		cli.Check(s.DamagedErr())
		_, _, err := layout.StateDelete(root, s.ID, rest[0])
		cli.Check(err)
	case "keys":
		ref, _ := split(0, 0)
		s := cli.ResolveOrCurrent(root, ref, "give a session id or name")
		cli.Check(s.DamagedErr())
		for _, k := range sortedKeys(s.Meta.State) {
			fmt.Println(k)
		}
	default:
		cli.Fatalf("unknown action %q: use get, set, delete or keys (see 'pty state --help')", action)
	}
}

var forms = map[string]string{
	"get":    "pty state get REF [KEY]",
	"set":    "pty state set REF KEY [JSON]",
	"delete": "pty state delete REF KEY",
	"del":    "pty state delete REF KEY",
	"rm":     "pty state delete REF KEY",
	"keys":   "pty state keys REF",
}

func argCount(action string) {
	f, ok := forms[action]
	if !ok {
		cli.Fatalf("unknown action %q: use get, set, delete or keys (see 'pty state --help')", action)
	}
	cli.Fatalf("wrong number of arguments: %s (REF may be left out inside a session)", f)
}

// readStdin reads a value from stdin, refusing a terminal: a user who forgot
// the value would otherwise stare at a command that waits for input.
func readStdin(key string) []byte {
	if term.IsTerminal(int(os.Stdin.Fd())) {
		cli.Fatalf("no value given for %q: pass it as an argument (pty state set ... %s '\"text\"') or pipe JSON on stdin", key, key)
	}
	b, err := io.ReadAll(io.LimitReader(os.Stdin, layout.MaxStateValue+1<<20))
	if err != nil {
		cli.Fatalf("read the value from stdin: %v", err)
	}
	return b
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
