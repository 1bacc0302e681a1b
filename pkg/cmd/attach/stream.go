package attach

import (
	"fmt"
	"strconv"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// StreamFD is the value of --attach-stream-fd-v1: a descriptor number,
// and whether the flag was given at all.
type StreamFD struct {
	N   int
	Set bool
}

func (f *StreamFD) String() string {
	if !f.Set {
		return ""
	}
	return strconv.Itoa(f.N)
}

func (f *StreamFD) set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a descriptor number, such as 3")
	}
	f.N, f.Set = n, true
	return nil
}

// streamFlag is StreamFD as a flag.Value.
type streamFlag struct{ *StreamFD }

func (f streamFlag) Set(s string) error { return f.set(s) }

const streamHelp = `--attach-stream-fd-v1 FD is for programs that draw the session themselves
(dashboards, layout tools): the keyboard and the size are still this
terminal's, but nothing is written to it; descriptor FD (3 or more, open for
writing, left open) gets the session's frames as the socket protocol encodes
them, [type u8][length u32 big-endian][payload]: GEOMETRY, then one SCREEN,
then DATA (GEOMETRY and SCREEN again when the session resizes or resyncs),
and last exactly one EXIT (the exit code; pty attach exits with it) or an
empty DETACH (the detach key, or this client killed). An ended session is
never restarted in this mode. A descriptor that is not open for writing, a
write that fails, a daemon that does not send GEOMETRY then SCREEN first, or
a connection that ends without EXIT is one line on stderr and exit 1
(docs/protocol.md, "The framed attach stream").`

// runStream is pty attach --attach-stream-fd-v1: the descriptor is
// checked before anything else, and only a running session is attached.
func runStream(o Options, io cli.IO) error {
	stream, err := client.OpenStream(o.StreamFD.N)
	if err != nil {
		return err
	}
	if o.Restart || o.ReadOnly {
		return fmt.Errorf("%s follows the session as a writable client and never restarts it: drop -r and -R", client.StreamFDFlag)
	}
	if len(o.Args) != 1 {
		return fmt.Errorf("attach takes one session reference, as in: pty attach %s 3 ID (see 'pty attach --help')", client.StreamFDFlag)
	}
	key, err := o.DetachKey.Key(io.Getenv)
	if err != nil {
		return err
	}
	if outer := io.Getenv("PTY_SESSION"); outer != "" && !o.Force {
		return fmt.Errorf("already inside pty session %q: attaching here would nest sessions. Detach first%s, or pass --force", outer, key.With())
	}
	s, err := layout.At(io.Root).Resolve(o.Args[0])
	if err != nil {
		return err
	}
	if s.Shown() != layout.Running {
		return errs.Sentence(fmt.Sprintf("Session %q is not running (status: %s).", s.ID, s.Shown()), nil)
	}
	conn, err := client.Dial(io.Root, s.ID)
	if err != nil {
		return errs.Sentence(fmt.Sprintf("Session %q is not answering on its socket: %v", s.ID, err), nil)
	}
	defer conn.Close()
	res, err := client.AttachStream(conn, client.StreamOptions{
		In: io.In, OutFile: io.OutFile(), Stream: stream, FD: o.StreamFD.N, DetachKey: key,
	})
	if err != nil {
		fmt.Fprintln(io.Err, "pty attach: "+err.Error())
		return cli.ExitCode(1)
	}
	switch {
	case res.Signal != 0:
		return cli.ExitCode(128 + int(res.Signal))
	case res.Exited && res.Code != 0:
		return cli.ExitCode(res.Code)
	}
	return nil
}
