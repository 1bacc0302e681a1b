package attach

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/remote"
)

// Attacher runs the attach loop for a session of another host, by its
// reference there, reconnecting when the connection drops.
type Attacher func(ref string, o client.AttachOptions) (client.Result, error)

// RunRemote is Run for a session of another host (pty --remote HOST
// attach). host names it in messages. An ended session is not restarted
// from here: its record is the host's.
func RunRemote(o Options, io cli.IO, host string, run Attacher) error {
	if o.Restart && o.NoRestart {
		return errors.New("-r and --no-restart contradict each other: use one")
	}
	if len(o.Args) != 1 {
		return errors.New("attach takes one session reference, as in: pty attach ID (see 'pty attach --help')")
	}
	ref := o.Args[0]
	if outer := io.Getenv("PTY_SESSION"); outer != "" && !o.Force {
		key, err := o.DetachKey.Key(io.Getenv)
		if err != nil {
			return err
		}
		return fmt.Errorf("already inside pty session %q: attaching here would nest sessions. Detach first%s, or pass --force", outer, key.With())
	}
	key, err := o.DetachKey.Key(io.Getenv)
	if err != nil {
		return err
	}
	if err := NeedTerminal(io.In, "pty attach", ref); err != nil {
		return err
	}
	ao := client.AttachOptions{In: io.In, Out: io.Out, OutFile: io.OutFile(), Name: ref, DetachKey: key}
	if o.ReadOnly {
		ao.ReadOnly = true
		ao.PeekFlags = proto.PeekFull | proto.PeekRedraw | proto.PeekFollow
	}
	o.History.Apply(&ao)
	res, err := run(ref, ao)
	var re *remote.RefusedError
	if errors.As(err, &re) {
		hint := fmt.Sprintf("see what is there with: pty --remote %s list", host)
		if !o.NoRestart {
			hint = fmt.Sprintf("if it has ended, restart it with: pty --remote %s restart %s", host, ref)
		}
		return errs.Sentence(fmt.Sprintf("%s: %s (no running session to attach to); %s", host, re.Reason, hint), nil)
	}
	if err != nil {
		return err
	}
	if res.Signal != 0 {
		return cli.ExitCode(128 + int(res.Signal))
	}
	if res.Exited && res.Code != 0 {
		return cli.ExitCode(res.Code)
	}
	return nil
}
