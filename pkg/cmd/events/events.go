// Package events is "pty events": follow or print sessions' event logs.
// cmd/pty-events only parses the command line and calls Run.
package events

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/eventlog"
	"github.com/ptyorg/pty/pkg/layout"
)

// recentCount is how many events --recent prints.
const recentCount = 50

// Options are events' flags and argument.
type Options struct {
	Ref     string // the session; the current one ($PTY_SESSION) when empty
	All     bool
	Recent  bool
	JSON    bool
	Wait    string  // an event type, or a prefix ending in *
	Timeout float64 // with Wait, in seconds; 0 waits forever
	// Args counts the positional arguments given (more than one is an
	// error Run reports).
	Args int
}

// Command declares events' flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("events",
		"pty events [REF | --all] [--recent] [--json] [--wait TYPE [-t D]]")
	c.Long = `Follows a session's event log like "tail -f": events appended from now on are
printed as they happen, one per line:

  HH:MM:SS  <session>  <type>  <payload as compact JSON>

--json prints the raw JSON lines instead. --all follows every session,
including sessions started later, until interrupted. Following one session
ends (exit 0) after its session_exit event, or when its record is removed; a
session that has already exited has nothing more to follow, so it ends at
once (--recent prints its past events). --wait then exits 1. Inside a session REF defaults to it.

--recent prints the last 50 events and exits.

--wait TYPE prints the first new event of TYPE and exits 0; with -t D it
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
	fs.BoolVar(&o.All, "all", false, "follow every session's events")
	fs.BoolVar(&o.Recent, "recent", false, "print the last 50 events and exit")
	fs.BoolVar(&o.JSON, "json", false, "print raw JSON lines")
	fs.StringVar(&o.Wait, "wait", "", "print the first new event of `TYPE` and exit")
	c.Values("wait", cli.ValueEvent)
	fs.Func("timeout", "with --wait, give up after `D` (exit 1): seconds (600, 0.5) or 500ms, 30s, 10m; 0 waits forever", func(s string) error {
		d, err := duration.Parse(s)
		o.Timeout = d.Seconds()
		return err
	})
	c.Alias("t", "timeout")
	return c
}

// Parse fills o from the command line (without the program name).
func Parse(c *cli.Command, o *Options, args []string) {
	pos := c.Parse(args)
	o.Args = len(pos)
	if len(pos) > 0 {
		o.Ref = pos[0]
	}
}

func (o Options) check() error {
	switch {
	case o.Args > 1:
		return errors.New("too many arguments: pty events [REF | --all] (one session, or --all)")
	case o.Ref != "" && o.All:
		return errors.New("give a session or --all, not both")
	case o.Recent && o.Wait != "":
		return errors.New("--recent prints past events and --wait waits for a new one: use one of them")
	case o.Timeout < 0 || math.IsNaN(o.Timeout) || math.IsInf(o.Timeout, 0):
		return errors.New("--timeout must be a number of seconds, 0 or more")
	case o.Timeout > 0 && o.Wait == "":
		return errors.New("-t/--timeout applies to --wait TYPE: add --wait, or drop -t")
	}
	return nil
}

// Run prints or follows the events o asks for against io. Following ends
// on SIGINT or SIGTERM, or with ctx.
func Run(ctx context.Context, o Options, io cli.IO) error {
	if err := o.check(); err != nil {
		return err
	}
	match := func(string) bool { return true }
	if o.Wait != "" {
		m, err := typeMatcher(o.Wait)
		if err != nil {
			return err
		}
		match = m
	}
	root := io.Root
	var ids []string
	if !o.All {
		s, err := cli.ResolveOrCurrent(root, o.Ref, io.Session, "give a session id or name, or --all")
		if err != nil {
			return err
		}
		ids = []string{s.ID}
	}
	print := func(l eventlog.Line) error {
		var err error
		if o.JSON {
			_, err = fmt.Fprintf(io.Out, "%s\n", l.Raw)
		} else {
			_, err = fmt.Fprintln(io.Out, eventlog.Format(l, time.Local))
		}
		if errors.Is(err, syscall.EPIPE) {
			return eventlog.ErrStop // the reader went away (| head): done
		}
		// Anything else (a full disk, a closed descriptor) lost
		// output: say so, rather than end as if all was printed.
		return err
	}

	if o.Recent {
		var lines []eventlog.Line
		var err error
		if o.All {
			lines, err = eventlog.RecentAll(root, recentCount)
		} else {
			lines, err = eventlog.Recent(root, ids[0], recentCount)
		}
		if err != nil {
			return err
		}
		for _, l := range lines {
			if err := print(l); errors.Is(err, eventlog.ErrStop) {
				return nil
			} else if err != nil {
				return err
			}
		}
		return nil
	}

	if o.All {
		// Following needs the directory to watch; an empty registry is
		// still one that sessions may appear in.
		if err := layout.EnsureRoot(root); err != nil {
			return err
		}
	}
	if o.Timeout > 0 && o.Timeout < float64(math.MaxInt64/int64(time.Second)) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(o.Timeout*float64(time.Second)))
		defer cancel()
	}
	// Following one session ends with it: after its session_exit, or
	// when its record is removed; one that has already exited has nothing
	// more to follow. --all follows the registry for good.
	found, ended, endedBefore := false, false, false
	f := eventlog.Follower{Root: root, IDs: ids}
	if !o.All {
		// Asked once the log is open (an exit recorded before then is
		// history: its session_exit will not be delivered) and on every
		// later change of the record (where an exit is left to its
		// session_exit line, appended right after the record).
		f.Ended = func(atStart bool) bool {
			s, err := layout.At(root).Load(ids[0])
			if errors.Is(err, layout.ErrNotFound) {
				ended = true
			} else if err == nil && atStart && s.Shown() == layout.Exited {
				ended, endedBefore = true, true
			}
			return ended
		}
	}
	err := f.Follow(ctx, func(l eventlog.Line) error {
		if l.Valid() && match(l.Event.Type) {
			if err := print(l); err != nil {
				return err
			}
			if o.Wait != "" {
				found = true
				return eventlog.ErrStop
			}
		}
		if !o.All && l.Event.Type == layout.EventSessionExit {
			ended = true
			return eventlog.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.Wait != "" && !found && endedBefore && match(layout.EventSessionExit) {
		// Waiting for an exit that has already happened: it is the
		// answer, as it would have been a moment earlier.
		lines, err := eventlog.Recent(root, ids[0], recentCount)
		if err != nil {
			return err
		}
		for i := len(lines) - 1; i >= 0; i-- {
			if lines[i].Event.Type == layout.EventSessionExit {
				print(lines[i])
				return nil
			}
		}
	}
	if o.Wait != "" && !found && ended {
		fmt.Fprintf(io.Err, "Session %q ended without a %s event.\n", ids[0], o.Wait)
		return cli.ExitCode(1)
	}
	if o.Wait != "" && !found {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			fmt.Fprintf(io.Err, "Timed out after %gs waiting for %q event.\n", o.Timeout, o.Wait)
			return cli.ExitCode(1)
		}
		return cli.ExitCode(130) // interrupted
	}
	return nil
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
