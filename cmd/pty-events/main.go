// Command pty-events follows or prints sessions' event logs.
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/eventlog"
	"github.com/ptyorg/pty/pkg/layout"
)

// recentCount is how many events --recent prints.
const recentCount = 50

func main() {
	c := cli.NewCommand("events",
		"pty events [REF | --all] [--recent] [--json] [--wait TYPE [-t SECS]]")
	c.Long = `Follows a session's event log like "tail -f": events appended from now on are
printed as they happen, one per line:

  HH:MM:SS  <session>  <type>  <payload as compact JSON>

--json prints the raw JSON lines instead. --all follows every session,
including sessions started later. Inside a session REF defaults to it.

--recent prints the last 50 events and exits.

--wait TYPE prints the first new event of TYPE and exits 0; with -t SECS it
exits 1 when none came in time. TYPE is an exact type (title_change,
session_exit, user.build-done, ...) or a prefix ending in "*" (user.*).

Types: bell, title_change, notification, focus_request, cursor_visible,
session_start, session_exit, session_exec, session_respawn,
session_abandoned, session_flapping, session_descendants_survived,
display_name_change, tags_change, metadata_change, state.set, state.delete,
and user.* (pty emit).

A log keeps at most 1000 lines and 2 MiB; past either it is cut to its
newest 500 lines and at most 1 MiB (followers carry on in the new file).

Examples:
  pty events web
  pty events --all --json
  pty events --recent web
  pty events web --wait user.build-done -t 600`
	fs := c.Flags
	all := fs.Bool("all", false, "follow every session's events")
	recent := fs.Bool("recent", false, "print the last 50 events and exit")
	asJSON := fs.Bool("json", false, "print raw JSON lines")
	wait := fs.String("wait", "", "print the first new event of `TYPE` and exit")
	c.Values("wait", cli.ValueEvent)
	var timeout float64
	fs.Float64Var(&timeout, "timeout", 0, "with --wait, give up after `SECS` seconds (exit 1); 0 waits forever")
	fs.Float64Var(&timeout, "t", 0, "short for --timeout")
	args := c.Parse(os.Args[1:])

	switch {
	case len(args) > 1:
		cli.Fatalf("too many arguments: pty events [REF | --all] (one session, or --all)")
	case len(args) == 1 && *all:
		cli.Fatalf("give a session or --all, not both")
	case *recent && *wait != "":
		cli.Fatalf("--recent prints past events and --wait waits for a new one: use one of them")
	case timeout < 0 || math.IsNaN(timeout) || math.IsInf(timeout, 0):
		cli.Fatalf("--timeout must be a number of seconds, 0 or more")
	case timeout > 0 && *wait == "":
		cli.Fatalf("-t/--timeout applies to --wait TYPE: add --wait, or drop -t")
	}
	match := func(string) bool { return true }
	if *wait != "" {
		m, err := typeMatcher(*wait)
		cli.Check(err)
		match = m
	}

	root := cli.Root()
	var ids []string
	if !*all {
		ids = []string{cli.ResolveOrCurrent(root, firstArg(args), "give a session id or name, or --all").ID}
	}
	print := func(l eventlog.Line) error {
		var err error
		if *asJSON {
			_, err = fmt.Printf("%s\n", l.Raw)
		} else {
			_, err = fmt.Println(eventlog.Format(l, time.Local))
		}
		if err != nil {
			return eventlog.ErrStop // the reader went away (| head): done
		}
		return nil
	}

	if *recent {
		var lines []eventlog.Line
		var err error
		if *all {
			lines, err = eventlog.RecentAll(root, recentCount)
		} else {
			lines, err = eventlog.Recent(root, ids[0], recentCount)
		}
		cli.Check(err)
		for _, l := range lines {
			if print(l) != nil {
				return
			}
		}
		return
	}

	if *all {
		// Following needs the directory to watch; an empty registry is
		// still one that sessions may appear in.
		cli.Check(layout.EnsureRoot(root))
	}
	ctx, cancel := cli.Context()
	defer cancel()
	if timeout > 0 && timeout < float64(math.MaxInt64/int64(time.Second)) {
		var tcancel context.CancelFunc
		ctx, tcancel = context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
		defer tcancel()
	}
	found := false
	err := eventlog.Follower{Root: root, IDs: ids}.Follow(ctx, func(l eventlog.Line) error {
		if !l.Valid() || !match(l.Event.Type) {
			return nil
		}
		if err := print(l); err != nil {
			return err
		}
		if *wait != "" {
			found = true
			return eventlog.ErrStop
		}
		return nil
	})
	cli.Check(err)
	if *wait != "" && !found {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			fmt.Fprintf(os.Stderr, "Timed out after %gs waiting for %q event.\n", timeout, *wait)
			os.Exit(1)
		}
		os.Exit(130) // interrupted
	}
}

// typeMatcher checks a --wait TYPE against the known types, so a typo fails
// at once instead of waiting forever.
func typeMatcher(t string) (func(string) bool, error) {
	if prefix, ok := strings.CutSuffix(t, "*"); ok {
		if strings.Contains(prefix, "*") {
			return nil, fmt.Errorf("--wait %q: only a trailing * is supported, as in user.*", t)
		}
		return func(s string) bool { return strings.HasPrefix(s, prefix) }, nil
	}
	if strings.HasPrefix(t, layout.EventUserPrefix) {
		if err := layout.ValidateUserEventType(t); err != nil {
			return nil, fmt.Errorf("--wait: %w", err)
		}
	} else if !slices.Contains(layout.EventTypes(), t) {
		return nil, fmt.Errorf("--wait: unknown event type %q: use one of %s, user.NAME, or a prefix ending in * (see 'pty events --help')", t, strings.Join(layout.EventTypes(), ", "))
	}
	return func(s string) bool { return s == t }, nil
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
