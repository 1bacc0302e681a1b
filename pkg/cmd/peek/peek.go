// Package peek is "pty peek": print a session's screen, follow it
// read-only, or wait until some text appears on it. cmd/pty-peek only
// parses the command line into Options and calls Run.
package peek

import (
	"errors"
	"fmt"
	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/duration"
	"math"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/peek/screen"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// Options are peek's flags and argument.
type Options struct {
	Args   []string // REF, alone
	Plain  bool
	Full   bool
	Follow bool
	Waits  []string
	// Timeout limits Waits, in seconds; 0 waits forever.
	Timeout    float64
	TimeoutSet bool // -t was given
	// Answer is how long a daemon has to answer a plain peek before it is
	// reported as not answering; 0 means DefaultAnswer.
	Answer time.Duration
	// DetachKey is the key that stops -f (--detach-key, PTY_DETACH_KEY).
	// nil means Ctrl+\.
	DetachKey detachkey.Source
}

// DefaultAnswer is how long a plain peek waits for a daemon to answer.
const DefaultAnswer = screen.DefaultAnswer

// Command declares peek's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("peek",
		"pty peek [--plain] [--full] [-f [--detach-key KEY]] [--wait TEXT]... [-t D] REF")
	c.Long = `Without flags, prints the visible screen with its colours and exits.
--full includes the scrollback. -f keeps following the output read-only
(it never changes the session's size) until Ctrl+\ or the session ends;
--detach-key (or PTY_DETACH_KEY) chooses another key, such as ctrl+a; with
none, Ctrl+C stops following.
--wait TEXT (repeatable) waits until any TEXT is on the screen, then prints it.

One line per row, like "tmux capture-pane -p" (-e without --plain), except
that blank rows at the bottom of the screen are left out.

For a session that has ended, prints its last saved lines. A daemon that
does not answer within 10 seconds is reported as such, and peek exits 1.

--remote HOST (or PTY_REMOTE=HOST) peeks a session on another host over
ssh, REF resolved there; every mode works, and -f reconnects when the
connection drops (a session that exits meanwhile ends it with its exit
status, as on this host). See 'pty remote --help' and docs/remote.md.`
	fs := c.Flags
	fs.BoolVar(&o.Plain, "plain", false, "plain text, without colours or attributes")
	fs.BoolVar(&o.Full, "full", false, "include the scrollback, not just the visible screen")
	fs.BoolVar(&o.Follow, "follow", false, "follow the output read-only until Ctrl+\\ (or the --detach-key) or the session ends")
	c.Alias("f", "follow")
	o.DetachKey = c.DetachKeyFlag()
	fs.Var((*cli.StringList)(&o.Waits), "wait", "wait until `TEXT` is on the screen (repeatable: any of them)")
	fs.Func("timeout", "with --wait: give up after `D`: seconds (5, 0.5) or 500ms, 30s, 2m (default: wait forever)", func(s string) error {
		d, err := duration.Parse(s)
		o.Timeout = d.Seconds()
		return err
	})
	c.Alias("t", "timeout")
	return c
}

// Parse fills o from the command line (without the program name).
func Parse(c *cli.Command, o *Options, args []string) {
	o.Args = c.Parse(args)
	o.TimeoutSet = c.Set("timeout")
}

// ref is the session reference; Run has checked there is one.
func (o Options) ref() string { return o.Args[0] }

// prepare checks the command line and returns the PEEK flags it asks for.
func (o Options) prepare() (byte, error) {
	if len(o.Args) != 1 {
		return 0, errors.New("peek takes one session reference, as in: pty peek ID (see 'pty peek --help')")
	}
	if err := o.check(); err != nil {
		return 0, err
	}
	var flags byte
	if o.Plain {
		flags |= proto.PeekPlain
	}
	if o.Full {
		flags |= proto.PeekFull
	}
	return flags, nil
}

// waitTimeout is -t as a Duration; 0 (no deadline) for more than one
// holds.
func (o Options) waitTimeout() time.Duration {
	if o.Timeout <= maxTimeout {
		return time.Duration(o.Timeout * float64(time.Second))
	}
	return 0
}

// check refuses combinations of flags that cannot work together.
func (o Options) check() error {
	if o.Timeout < 0 || math.IsNaN(o.Timeout) || math.IsInf(o.Timeout, 0) {
		return errors.New("-t must be a positive number of seconds")
	}
	if len(o.Waits) == 0 && o.TimeoutSet {
		return errors.New("-t only limits --wait TEXT: add --wait, or drop -t")
	}
	if o.Follow && len(o.Waits) > 0 {
		return errors.New("-f and --wait cannot be combined: use one")
	}
	if o.Follow && o.Plain {
		// Following replays the session's own output, escape sequences
		// and all, onto this terminal; there is no plain form of it.
		return errors.New("-f and --plain cannot be combined: -f replays the terminal output as is; for text, use --plain without -f (or --wait TEXT)")
	}
	for _, w := range o.Waits {
		if w == "" {
			return errors.New("--wait needs non-empty text")
		}
	}
	return nil
}

// Run does what o asks against io.
func Run(o Options, io cli.IO) error {
	flags, err := o.prepare()
	if err != nil {
		return err
	}
	switch {
	case len(o.Waits) > 0:
		s, err := layout.At(io.Root).Resolve(o.ref())
		if err != nil {
			return err
		}
		return exitCode(wait(io, s, o.Waits, o.waitTimeout(), flags))
	case o.Follow:
		key, err := o.DetachKey.Key(io.Getenv)
		if err != nil {
			return err
		}
		client.IgnoreQuitKey()
		return follow(io, o.ref(), key, flags)
	}
	return screen.Print(io, o.ref(), flags, o.Answer)
}

func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return cli.ExitCode(code)
}

func follow(io cli.IO, ref string, key detachkey.Key, flags byte) error {
	s, err := layout.At(io.Root).Resolve(ref)
	if err != nil {
		return err
	}
	if s.Shown() != layout.Running {
		return printDead(io, s)
	}
	conn, err := client.Dial(io.Root, s.ID)
	if err != nil {
		if s, err = unserved(io.Root, s, err); err != nil {
			return err
		}
		return printDead(io, s)
	}
	res, err := client.Attach(conn, client.AttachOptions{In: io.In, Out: io.Out, OutFile: io.OutFile(),
		Name: s.ID, ReadOnly: true, PeekFlags: flags&^proto.PeekPlain | proto.PeekFollow, DetachKey: key})
	if err != nil {
		return err
	}
	if res.Signal != 0 {
		return cli.ExitCode(128 + int(res.Signal))
	}
	if res.Exited {
		return exitCode(res.Code)
	}
	return nil
}

// unserved is the session whose daemon did not serve us (err), once it
// has ended (see screen.Unserved).
func unserved(root string, s layout.Session, err error) (layout.Session, error) {
	return screen.Unserved(root, s, err)
}

// printDead prints what an ended session left behind.
func printDead(io cli.IO, s layout.Session) error { return screen.PrintDead(io, s) }

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
func wait(io cli.IO, s layout.Session, waits []string, timeout time.Duration, flags byte) int {
	root := io.Root
	quoted := `"` + strings.Join(waits, `" or "`) + `"`
	deadEnd := func(s layout.Session) int {
		code := -1
		if s.Meta.ExitCode != nil {
			code = *s.Meta.ExitCode
		}
		text := strings.Join(s.Meta.LastLines, "\n")
		if matches(text, waits) {
			fmt.Fprintln(io.Out, text)
			return 0
		}
		fmt.Fprintf(io.Err, "Session %q exited (code %d) without matching %s. Last output:\n", s.ID, code, quoted)
		fmt.Fprintln(io.Err, text)
		return 1
	}
	unservedEnd := func(err error) int {
		s, uerr := unserved(root, s, err)
		if uerr != nil {
			fmt.Fprintln(io.Err, "pty: "+uerr.Error())
			return 1
		}
		return deadEnd(s)
	}
	if s.Shown() != layout.Running {
		return deadEnd(s)
	}
	conn, err := client.Dial(root, s.ID)
	if err != nil {
		return unservedEnd(err)
	}
	defer conn.Close()
	if _, err := conn.Peek(proto.PeekPlain); err != nil {
		return unservedEnd(err)
	}
	st := watch(conn)
	activity, ended := st.activity, st.ended
	deadline := after(timeout)
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
			client.PrintScreen(io.Out, snap.Screen, flags&proto.PeekPlain != 0)
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
			if st.exited && rec.Meta.ExitCode == nil {
				c := st.code
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
			fmt.Fprintf(io.Err, "Timed out after %ss waiting for %s.\n", secs(timeout), quoted)
			return 1
		}
	}
}

// waitRecord waits briefly for the ended session's exit record, which the
// daemon writes right after it sends EXIT.
func waitRecord(root string, s layout.Session) layout.Session {
	deadline := time.Now().Add(2 * time.Second)
	for {
		n, err := layout.At(root).Load(s.ID)
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

// stream is the live output of a connection after its PEEK, followed in
// the background: a token on activity whenever output arrives, ended
// closed when the stream ends; then exited and code say whether an EXIT
// came, and its code.
type stream struct {
	activity chan struct{}
	ended    chan struct{}
	code     int
	exited   bool
}

func watch(c *client.Conn) *stream {
	st := &stream{activity: make(chan struct{}, 1), ended: make(chan struct{})}
	go func() {
		st.code, st.exited, _ = c.Follow(func(proto.Frame) bool {
			select {
			case st.activity <- struct{}{}:
			default:
			}
			return true
		})
		close(st.ended)
	}()
	return st
}

// after is a channel that fires once timeout has passed; nil (never)
// for no timeout.
func after(timeout time.Duration) <-chan time.Time {
	if timeout > 0 {
		return time.After(timeout)
	}
	return nil
}
