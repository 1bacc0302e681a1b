// Command pty-peek prints a session's screen, follows it read-only, or
// waits until some text appears on it.
package main

import (
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

func main() {
	c := cli.NewCommand("peek",
		"pty peek [--plain] [--full] [-f [--detach-key KEY]] [--wait TEXT]... [-t SECS] REF",
		"Print a session's screen, follow it read-only, or wait for text on it.")
	c.Long = `Without flags, prints the visible screen with its colours and exits.
--full includes the scrollback. -f keeps following the output read-only
(it never changes the session's size) until Ctrl+\ or the session ends;
--detach-key (or PTY_DETACH_KEY) chooses another key, such as ctrl+a; with
none, Ctrl+C stops following.
--wait TEXT (repeatable) waits until any TEXT is on the screen, then prints it.

One line per row, like "tmux capture-pane -p" (-e without --plain), except
that blank rows at the bottom of the screen are left out.

For a session that has ended, prints its last saved lines.`
	fs := c.Flags
	plain := fs.Bool("plain", false, "plain text, without colours or attributes")
	full := fs.Bool("full", false, "include the scrollback, not just the visible screen")
	follow := fs.Bool("f", false, "follow the output read-only until Ctrl+\\ (or the --detach-key) or the session ends")
	detachKey := c.DetachKeyFlag()
	var waits cli.StringList
	fs.Var(&waits, "wait", "wait until `TEXT` is on the screen (repeatable: any of them)")
	timeout := fs.Float64("t", 0, "with --wait: give up after `SECS` seconds (default: wait forever)")
	args := c.Parse(os.Args[1:])
	if len(args) != 1 {
		cli.Fatalf("peek takes one session reference, as in: pty peek ID (see 'pty peek --help')")
	}
	if *timeout < 0 || math.IsNaN(*timeout) || math.IsInf(*timeout, 0) {
		cli.Fatalf("-t must be a positive number of seconds")
	}
	if len(waits) == 0 && c.Set("t") {
		cli.Fatalf("-t only limits --wait TEXT: add --wait, or drop -t")
	}
	if *timeout > maxTimeout {
		*timeout = 0 // longer than a Duration holds: no deadline
	}
	if *follow && len(waits) > 0 {
		cli.Fatalf("-f and --wait cannot be combined: use one")
	}
	if *follow && *plain {
		// Following replays the session's own output, escape sequences
		// and all, onto this terminal; there is no plain form of it.
		cli.Fatalf("-f and --plain cannot be combined: -f replays the terminal output as is; for text, use --plain without -f (or --wait TEXT)")
	}
	for _, w := range waits {
		if w == "" {
			cli.Fatalf("--wait needs non-empty text")
		}
	}
	root := cli.Root()
	var flags byte
	if *plain {
		flags |= proto.PeekPlain
	}
	if *full {
		flags |= proto.PeekFull
	}
	if len(waits) == 0 && !*follow {
		if b, err := client.QuickPeek(root, args[0], flags, 10*time.Second); err == nil {
			client.PrintScreen(os.Stdout, b, *plain)
			return
		}
	}
	s := cli.Resolve(root, args[0])

	switch {
	case len(waits) > 0:
		os.Exit(wait(root, s, waits, time.Duration(*timeout*float64(time.Second)), flags))
	case *follow:
		client.IgnoreQuitKey()
		if s.Status != layout.Running {
			os.Exit(printDead(s))
		}
		conn, err := client.Dial(root, s.ID)
		if err != nil {
			os.Exit(printDead(unserved(root, s, err)))
		}
		res, err := client.Attach(conn, client.AttachOptions{In: os.Stdin, Out: os.Stdout, OutFile: os.Stdout,
			Name: s.ID, ReadOnly: true, PeekFlags: flags &^ proto.PeekPlain, DetachKey: detachKey()})
		if err != nil {
			cli.Fatalf("%v", err)
		}
		if res.Exited {
			os.Exit(res.Code)
		}
	default:
		if s.Status != layout.Running {
			os.Exit(printDead(s))
		}
		snap, err := client.Peek(root, s.ID, flags)
		if err != nil {
			os.Exit(printDead(unserved(root, s, err)))
		}
		client.PrintScreen(os.Stdout, snap.Screen, *plain)
	}
}

func reload(root string, s layout.Session) layout.Session {
	if n, err := layout.Load(root, s.ID); err == nil {
		return n
	}
	return s
}

// unserved is the session whose daemon did not serve us (err), once it
// has ended; if it is still running, its daemon refuses us, which is an
// error, not an ended session to print.
func unserved(root string, s layout.Session, err error) layout.Session {
	s = client.Settle(root, s)
	if s.Status == layout.Running {
		cli.Fatalf("%v", client.Unreachable(root, s, err))
	}
	return s
}

// printDead prints what an ended session left behind.
func printDead(s layout.Session) int {
	if len(s.Meta.LastLines) == 0 {
		fmt.Printf("Session %q has %s with no saved output\n", s.ID, s.Status)
		return 0
	}
	fmt.Println(strings.Join(s.Meta.LastLines, "\n"))
	return 0
}

func matches(screen string, waits []string) bool {
	for _, w := range waits {
		if strings.Contains(screen, w) {
			return true
		}
	}
	return false
}

// wait follows the live stream and re-reads the plain screen whenever
// output arrives (at most every 50 ms), so a match is seen promptly
// without polling an idle session.
func wait(root string, s layout.Session, waits []string, timeout time.Duration, flags byte) int {
	quoted := `"` + strings.Join(waits, `" or "`) + `"`
	deadEnd := func(s layout.Session) int {
		code := -1
		if s.Meta.ExitCode != nil {
			code = *s.Meta.ExitCode
		}
		text := strings.Join(s.Meta.LastLines, "\n")
		if matches(text, waits) {
			fmt.Println(text)
			return 0
		}
		fmt.Fprintf(os.Stderr, "Session %q exited (code %d) without matching %s. Last output:\n", s.ID, code, quoted)
		fmt.Fprintln(os.Stderr, text)
		return 1
	}
	if s.Status != layout.Running {
		return deadEnd(s)
	}
	conn, err := client.Dial(root, s.ID)
	if err != nil {
		return deadEnd(unserved(root, s, err))
	}
	defer conn.Close()
	if _, err := conn.Peek(proto.PeekPlain); err != nil {
		return deadEnd(unserved(root, s, err))
	}
	activity := make(chan struct{}, 1)
	ended := make(chan struct{})
	exitCode, gotExit := 0, false
	go func() {
		exitCode, gotExit, _ = conn.Follow(func(f proto.Frame) bool {
			select {
			case activity <- struct{}{}:
			default:
			}
			return true
		})
		close(ended)
	}()
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = time.After(timeout)
	}
	lastScreen := ""
	check := func() (bool, error) {
		snap, err := client.Peek(root, s.ID, proto.PeekPlain)
		if err != nil {
			return false, err
		}
		lastScreen = string(snap.Screen)
		if matches(string(snap.Screen), waits) {
			if flags&proto.PeekPlain == 0 || flags&proto.PeekFull != 0 {
				if again, err := client.Peek(root, s.ID, flags); err == nil {
					snap = again
				}
			}
			client.PrintScreen(os.Stdout, snap.Screen, flags&proto.PeekPlain != 0)
			return true, nil
		}
		return false, nil
	}
	// finished reports a session that ended while we waited; the record
	// may be gone (reaped), so the EXIT frame's code is the fallback.
	finished := func() int {
		rec := waitRecord(root, s)
		select {
		case <-ended:
			if gotExit && rec.Meta.ExitCode == nil {
				c := exitCode
				rec.Meta.ExitCode = &c
			}
		default:
		}
		if len(rec.Meta.LastLines) == 0 && lastScreen != "" {
			rec.Meta.LastLines = strings.Split(strings.TrimRight(lastScreen, "\n"), "\n")
		}
		return deadEnd(rec)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	dirty := true
	for {
		if dirty {
			ok, err := check()
			if ok {
				return 0
			}
			if err != nil {
				// The daemon is going away; its EXIT is on our stream.
				select {
				case <-ended:
				case <-time.After(2 * time.Second):
				}
				return finished()
			}
			dirty = false
		}
		select {
		case <-activity:
			// Re-read on the next tick: a burst of output costs one
			// snapshot, not one per chunk.
			<-tick.C
			dirty = true
		case <-ended:
			if ok, _ := check(); ok {
				return 0
			}
			return finished()
		case <-deadline:
			if ok, _ := check(); ok {
				return 0
			}
			fmt.Fprintf(os.Stderr, "Timed out after %ss waiting for %s.\n", secs(timeout), quoted)
			return 1
		}
	}
}

// waitRecord waits briefly for the ended session's exit record, which the
// daemon writes right after it sends EXIT.
func waitRecord(root string, s layout.Session) layout.Session {
	deadline := time.Now().Add(2 * time.Second)
	for {
		n, err := layout.Load(root, s.ID)
		if err != nil {
			return s
		}
		if n.Meta.Exited() || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func secs(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".")
}

// maxTimeout is the longest -t a time.Duration can hold, in seconds;
// converting more would wrap around to a negative deadline.
const maxTimeout = float64(math.MaxInt64 / int64(time.Second))
