package peek

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/remote"
)

// Remote is how peek reaches a session of another host (pty --remote
// HOST peek).
type Remote struct {
	Route client.Router
	// Follow runs the read-only attach of -f, reconnecting when the
	// connection drops (nil: one connection, no reconnect).
	Follow func(ref string, o client.AttachOptions) (client.Result, error)
	// OnHost runs this very peek with pty on the host, for a session the
	// host has no daemon for: what an ended session left is in the
	// host's registry, which only pty there reads.
	OnHost func() error
}

// RunRemote is Run for a session of another host.
func RunRemote(o Options, io cli.IO, r Remote) error {
	flags, err := o.prepare()
	if err != nil {
		return err
	}
	switch {
	case len(o.Waits) > 0:
		return waitRemote(io, r, o, o.waitTimeout(), flags)
	case o.Follow:
		key, err := o.DetachKey.Key(io.Getenv)
		if err != nil {
			return err
		}
		client.IgnoreQuitKey()
		return followRemote(io, r, o.ref(), key, flags)
	}
	answer := o.Answer
	if answer <= 0 {
		answer = DefaultAnswer
	}
	snap, err := peekRemote(r, o.ref(), flags, answer)
	if refused(err) {
		return r.OnHost()
	}
	if err != nil {
		return err
	}
	if err := client.PrintScreen(io.Out, snap.Screen, o.Plain); err != nil {
		return err
	}
	if snap.Exited {
		return exitCode(snap.Code)
	}
	return nil
}

func refused(err error) bool {
	var re *remote.RefusedError
	return errors.As(err, &re)
}

// peekRemote is one PEEK over a route of its own.
func peekRemote(r Remote, ref string, flags byte, answer time.Duration) (client.Snapshot, error) {
	c, done, err := r.Route(ref, client.PeekAhead(flags))
	if err != nil {
		return client.Snapshot{}, err
	}
	defer done()
	c.Raw().SetDeadline(time.Now().Add(answer))
	snap, err := c.ReadPeek()
	if err != nil {
		return snap, fmt.Errorf("session %q did not send its screen: %w", ref, err)
	}
	return snap, nil
}

func followRemote(io cli.IO, r Remote, ref string, key detachkey.Key, flags byte) error {
	ao := client.AttachOptions{In: io.In, Out: io.Out, OutFile: io.OutFile(),
		Name: ref, ReadOnly: true, PeekFlags: flags&^proto.PeekPlain | proto.PeekFollow, DetachKey: key}
	var res client.Result
	var err error
	if r.Follow != nil {
		res, err = r.Follow(ref, ao)
	} else {
		var c *client.Conn
		var done func()
		if c, done, err = r.Route(ref, nil); err == nil {
			res, err = client.Attach(c, ao)
			done()
		}
	}
	if refused(err) {
		return r.OnHost()
	}
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

// waitRemote is wait over routes: one follows the session, so that its
// output wakes the check, and each check is a PEEK of its own.
func waitRemote(io cli.IO, r Remote, o Options, timeout time.Duration, flags byte) error {
	ref, waits := o.ref(), o.Waits
	quoted := `"` + strings.Join(waits, `" or "`) + `"`
	c, done, err := r.Route(ref, nil)
	if refused(err) {
		return r.OnHost()
	}
	if err != nil {
		return err
	}
	defer done()
	if _, err := c.Peek(proto.PeekPlain); err != nil {
		return fmt.Errorf("session %q: %w", ref, err)
	}
	st := watch(c)
	deadline := after(timeout)
	last := ""
	check := func() bool {
		snap, err := peekRemote(r, ref, proto.PeekPlain, DefaultAnswer)
		if err != nil {
			return false
		}
		last = string(snap.Screen)
		if !matches(last, waits) {
			return false
		}
		if flags&proto.PeekPlain == 0 || flags&proto.PeekFull != 0 {
			if again, err := peekRemote(r, ref, flags, DefaultAnswer); err == nil {
				snap = again
			}
		}
		client.PrintScreen(io.Out, snap.Screen, flags&proto.PeekPlain != 0)
		return true
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for dirty := true; ; {
		if dirty && check() {
			return nil
		}
		dirty = false
		select {
		case <-st.activity:
			<-tick.C
			dirty = true
		case <-st.ended:
			if check() {
				return nil
			}
			if !st.exited {
				return fmt.Errorf("lost the connection to session %q while waiting for %s; run the peek again", ref, quoted)
			}
			text := strings.TrimRight(last, "\n")
			fmt.Fprintf(io.Err, "Session %q exited (code %d) without matching %s. Last output:\n", ref, st.code, quoted)
			fmt.Fprintln(io.Err, text)
			return cli.ExitCode(1)
		case <-deadline:
			if check() {
				return nil
			}
			fmt.Fprintf(io.Err, "Timed out after %ss waiting for %s.\n", secs(timeout), quoted)
			return cli.ExitCode(1)
		}
	}
}
