package client

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/internal/tty"
	"github.com/ptyorg/pty/pkg/proto"
)

// AttachOptions configures Attach.
type AttachOptions struct {
	In  *os.File  // the user's keyboard; raw mode is set if it is a terminal
	Out io.Writer // the user's screen
	// OutFile, when Out is a terminal, is used to read its size.
	OutFile *os.File
	// Name is how messages name the session ("[NAME exited with code N]").
	Name string
	// ReadOnly follows without typing or constraining the size (peek -f,
	// attach -R).
	ReadOnly bool
	// PeekFlags are the PEEK flags when ReadOnly.
	PeekFlags byte
	// DetachKey is the key that detaches (the zero Key is Ctrl+\).
	DetachKey detachkey.Key
	// History is how many lines of the session's scrollback the daemon
	// writes into the terminal's own scrollback before the screen, when
	// LimitHistory; otherwise all of it.
	LimitHistory bool
	History      int
	// Title, when not empty, is the terminal's title while attached: the
	// user's is pushed on the terminal's title stack first and popped at
	// the end. The program's own title changes reach the terminal too.
	Title string
	// Switch, when set, lets a command run in the session move this
	// client to another session (pty switch): it is called with that
	// session's id and returns a connection to it, how messages name it
	// and its Title. An error ends the attach, detached.
	Switch func(id string) (c *Conn, name, title string, err error)
	// switched, when set, is called with the connection a switch moved
	// to and the options the attach there is to use, before it
	// (AttachRouted starts counting the new session's lines there).
	switched func(c *Conn, o *AttachOptions)
}

// Result is how an attach ended.
type Result struct {
	Detached bool
	Exited   bool
	Code     int
	// Signal is the signal (SIGTERM, SIGINT or SIGHUP) that ended the
	// attach: the terminal was restored and [terminated] printed first,
	// as tmux's client does; the session goes on.
	Signal syscall.Signal
}

// TermSize returns the size of the first terminal among fs, else 24x80,
// within the largest size a session may have (proto.MaxRows, MaxCols).
func TermSize(fs ...*os.File) (rows, cols int) { return tty.Size(fs...) }

type frameOrErr struct {
	f   proto.Frame
	err error
}

// Attach runs the interactive loop on an open connection: raw mode,
// baseline, live output, keyboard input, resize forwarding and the detach
// key. It prints [detached] or [NAME exited with code N] itself. With
// o.Switch, a command run in the session may move it to another session
// (docs/protocol.md, "Switching sessions"): it goes on there in the same
// terminal, which stays raw in between, and closes the connections it
// moved to as it leaves them.
func Attach(c *Conn, o AttachOptions) (Result, error) {
	IgnoreQuitKey()
	in := o.In
	isTTY := in != nil && term.IsTerminal(int(in.Fd()))
	var st *term.State
	if isTTY {
		var err error
		st, err = term.MakeRaw(int(in.Fd()))
		if err != nil {
			return Result{}, fmt.Errorf("raw mode: %w", err)
		}
		defer term.Restore(int(in.Fd()), st)
	}
	// A signal that would end this process ends the attach instead, so
	// that the terminal is not left raw and in the session's modes.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(stop)
	// One P: attach is an I/O loop, and with a second, idle P the
	// scheduler wakes a spare thread (a futex wake-up, an interrupt on
	// another CPU) whenever a goroutine becomes runnable, several times
	// per keystroke.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if !isTTY {
		o.Title = "" // no terminal to title
	}
	if o.Title != "" {
		io.WriteString(o.Out, titlePush+titleSet(o.Title))
	}
	var moved *Conn // a connection of a switch, ours to close
	defer func() {
		if moved != nil {
			moved.Close()
		}
	}()
	var carry []byte // keys typed through a switch, for the next session
	for {
		res, to, err := attachOne(c, o, st, stop, &carry)
		if to == "" {
			return res, err
		}
		next, name, title, err := o.Switch(to)
		if err != nil {
			finishOn(o, st, "[detached]")
			return Result{Detached: true}, fmt.Errorf("cannot switch to %s: %w; %s goes on, detached", to, err, o.Name)
		}
		// What the last session left on, off; the next one's baseline
		// sets its own.
		io.WriteString(o.Out, proto.ResetModes)
		if o.Title != "" {
			io.WriteString(o.Out, titlePop+titlePush+titleSet(title))
			o.Title = title
		}
		c.Close()
		c, moved, o.Name = next, next, name
		if o.switched != nil {
			o.switched(c, &o)
		}
	}
}

// attachOne is Attach on one connection, the terminal already set up.
// It returns the session to switch to, if the daemon says so (SwitchTo),
// with what was typed after the old session said so in *carry, which it
// sends the next session first.
func attachOne(c *Conn, o AttachOptions, st *term.State, stop <-chan os.Signal, carry *[]byte) (Result, string, error) {
	in := o.In
	isTTY := st != nil
	rows, cols := TermSize(o.OutFile, in)
	c.direct()
	// The keyboard and the screen, as non-blocking descriptors of the
	// same terminal on the runtime's poller, read and written with
	// rawio: what a keystroke's echo costs is then a poller wake-up and
	// two system calls, as in dtach. (A blocking read of stdin also woke
	// the runtime's monitor thread on every keystroke.) Closing keysIn
	// on return also ends the goroutine reading it.
	var keysIn io.Reader = in
	var kbFile, screenFile *os.File
	if isTTY {
		if f, rc := reopenNonblock(in, os.O_RDONLY); f != nil {
			defer f.Close()
			kbFile, keysIn = f, rawio.Conn{RC: rc}
		}
	}
	screen := o.Out
	if f, ok := o.Out.(*os.File); ok && o.OutFile == f && term.IsTerminal(int(f.Fd())) {
		if g, rc := reopenNonblock(f, os.O_WRONLY); g != nil {
			defer g.Close()
			screenFile, screen = g, rawio.Conn{RC: rc}
		}
	}
	// How much history the attach below is to write (HISTORY): sent
	// first, so that it applies to it (to a PEEK only with the full and
	// redraw flags, attach -R's); the original's daemon ignores it.
	if o.LimitHistory {
		if err := c.WriteFrame(proto.History, proto.HistoryLines(o.History)); err != nil {
			return Result{}, "", fmt.Errorf("attach: %w", c.lost(err))
		}
	}
	// A writable client can be moved by a switch, whether the daemon
	// holds its terminal or it relays the output itself; an older
	// daemon ignores the frame.
	if !o.ReadOnly && o.Switch != nil {
		if err := c.WriteFrame(proto.SwitchReady, nil); err != nil {
			return Result{}, "", fmt.Errorf("attach: %w", c.lost(c.refusedOr(err)))
		}
	}
	// Keys typed through the switch that brought us here, before the
	// attach (the daemon writes a command connection's DATA at once):
	// ahead of whatever the keyboard has now, whoever reads it.
	if len(*carry) > 0 {
		if err := c.WriteFrame(proto.Data, *carry); err != nil {
			return Result{}, "", fmt.Errorf("attach: %w", c.refusedOr(err))
		}
		*carry = nil
	}
	// Better still, the daemon takes the terminal itself (ATTACH_TTY):
	// then a keystroke's echo does not pass through this process at all.
	if !o.ReadOnly && kbFile != nil && screenFile != nil {
		handed, err := c.handTerminal(rows, cols, o.DetachKey, kbFile, screenFile)
		if err != nil {
			return Result{}, "", fmt.Errorf("attach: %w", c.refusedOr(err))
		}
		if handed {
			kbFile.Close() // the daemon has its own; the keyboard is its now
			screenFile.Close()
			return waitHanded(c, o, st, rows, cols, stop)
		}
	}
	var err error
	if o.ReadOnly {
		follow := o.PeekFlags&proto.PeekFollow != 0
		if follow {
			// The terminal's size, which the daemon's redraws fill (a
			// follower's constrains nothing), before the PEEK so that
			// its baseline's history scrolls this terminal's height,
			// and again after it for a daemon of ours that keeps it
			// only from a follower. The original's daemon ignores both.
			err = c.WriteFrame(proto.Resize, proto.Size(rows, cols))
		}
		if err == nil {
			err = c.WriteFrame(proto.Peek, proto.PeekRequest(o.PeekFlags))
		}
		if err == nil && follow {
			err = c.WriteFrame(proto.Resize, proto.Size(rows, cols))
		}
	} else {
		err = c.WriteFrame(proto.Attach, proto.Size(rows, cols))
	}
	if err != nil {
		return Result{}, "", fmt.Errorf("attach: %w", c.lost(c.refusedOr(err)))
	}

	// The session's output is written to Out by the goroutine that reads
	// it, and keys are sent by the goroutine that reads them: no hand-off
	// through this loop on the way, which a keystroke's echo would pay
	// twice. This loop only ends the attach. out guards Out, so nothing is
	// written after finish.
	var out struct {
		sync.Mutex
		done bool
	}
	write := func(b []byte) {
		out.Lock()
		if !out.done {
			screen.Write(b)
		}
		out.Unlock()
	}
	ended := make(chan frameOrErr, 1)
	var gate *keyGate
	gated := make(chan struct{})
	var termRows atomic.Int32
	termRows.Store(int32(rows))
	go func() {
		drawn := false
		for {
			f, err := c.NextStreaming(write)
			if err != nil {
				ended <- frameOrErr{err: err}
				return
			}
			switch f.Type {
			case proto.Screen:
				// The first clears the screen (and so keeps what the
				// terminal showed before in its scrollback); the others
				// draw over the session's screen in place.
				if drawn {
					write(proto.RedrawInPlace(nil, f.Payload, int(termRows.Load())))
				} else {
					write(proto.Redraw(nil, f.Payload))
					drawn = true
				}
			case proto.SwitchTo:
				// From here on, keys are the next session's.
				<-gated
				gate.hold()
				ended <- frameOrErr{f: f}
				return
			case proto.Exit:
				ended <- frameOrErr{f: f}
				return
			}
		}
	}()
	var keysFrom io.Reader
	if in != nil {
		keysFrom = keysIn
	}
	detach, sendErr, gate := c.keyboard(keysFrom, o.DetachKey, o.ReadOnly)
	close(gated)
	winch := make(chan os.Signal, 1)
	if !o.ReadOnly || o.PeekFlags&proto.PeekFollow != 0 {
		signal.Notify(winch, syscall.SIGWINCH)
		defer signal.Stop(winch)
	}

	finish := func(msg string) {
		out.Lock()
		out.done = true
		finishOn(o, st, msg)
		out.Unlock()
	}
	for {
		select {
		case fe := <-ended:
			if fe.err != nil {
				finish(fmt.Sprintf("[lost connection to %s]", o.Name))
				return Result{}, "", fmt.Errorf("session %s: %w: %w", o.Name, ErrConnectionLost, fe.err)
			}
			if fe.f.Type == proto.SwitchTo {
				// Nothing of this session's after its last output: the
				// daemon queued nothing behind SWITCH_TO, and what the
				// connection still carries is dropped.
				out.Lock()
				out.done = true
				out.Unlock()
				c.letGo()
				if len(fe.f.Payload) > 0 && o.Switch != nil {
					// The keyboard stops with its descriptor (closed
					// here, rather than on return, to collect what it
					// read last). One that is not ours to close reads on;
					// what it has so far is kept.
					wait := time.Duration(0)
					if kbFile != nil {
						kbFile.Close()
						wait = time.Second
					}
					*carry = gate.kept(wait)
					return Result{}, string(fe.f.Payload), nil
				}
				finish("[detached]")
				return Result{Detached: true}, "", nil
			}
			code := proto.ParseExitCode(fe.f.Payload)
			finish(fmt.Sprintf("[%s exited with code %d]", o.Name, code))
			return Result{Exited: true, Code: code}, "", nil
		case err := <-sendErr:
			finish(fmt.Sprintf("[lost connection to %s]", o.Name))
			return Result{}, "", fmt.Errorf("session %s: %w: %w", o.Name, ErrConnectionLost, err)
		case <-detach:
			c.Detach()
			finish("[detached]")
			return Result{Detached: true}, "", nil
		case sig := <-stop:
			c.Detach()
			finish("[terminated]")
			return Result{Signal: sig.(syscall.Signal)}, "", nil
		case <-winch:
			r, cl := TermSize(o.OutFile, in)
			if r != rows || cl != cols {
				rows, cols = r, cl
				termRows.Store(int32(rows))
				c.WriteFrame(proto.Resize, proto.Size(rows, cols))
			}
		}
	}
}

// finishOn ends an attach on the user's terminal: modes reset, the
// terminal restored, msg below the session's screen.
func finishOn(o AttachOptions, st *term.State, msg string) {
	// Resetting the scroll region and leaving the alternate screen move
	// the cursor (to the top, or to where it was saved), so go to the
	// bottom row before printing, as dtach does: the message lands below
	// the session's screen, never over it.
	io.WriteString(o.Out, finishStart)
	if o.Title != "" {
		io.WriteString(o.Out, titlePop)
	}
	if st != nil {
		term.Restore(int(o.In.Fd()), st)
	}
	io.WriteString(o.Out, "\r\n"+msg+"\r\n")
}

// handTerminal offers the daemon the user's keyboard and screen
// (ATTACH_TTY, or ATTACH_TTY_KEY with a detach key other than Ctrl+\) and
// reports whether it took them. A STATUS request right behind the offer
// tells a daemon that does not know the frame (the original pty's, or an
// older one of ours, which ignore it): its STATUS reply comes with no
// TTY_ATTACHED before it.
func (c *Conn) handTerminal(rows, cols int, key detachkey.Key, kb, screen *os.File) (bool, error) {
	if c.relayed {
		return false, nil
	}
	fds := make([]int, 0, 2)
	for _, f := range []*os.File{kb, screen} {
		rc, err := f.SyscallConn() // not Fd(): it would make f blocking
		if err != nil {
			return false, nil
		}
		rc.Control(func(fd uintptr) { fds = append(fds, int(fd)) })
	}
	sc, err := c.c.SyscallConn()
	if err != nil {
		return false, nil
	}
	frame := proto.AppendFrame(nil, proto.AttachTTY, proto.Size(rows, cols))
	if !key.IsDefault() {
		frame = proto.AppendFrame(nil, proto.AttachTTYKey, proto.AttachKey(rows, cols, key.Spec()))
	}
	var serr error
	c.wmu.Lock()
	werr := sc.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), frame, unix.UnixRights(fds...), nil, 0)
		return serr != unix.EAGAIN
	})
	c.wmu.Unlock()
	if werr != nil {
		return false, werr
	}
	if serr != nil {
		return false, serr
	}
	f, err := c.probe(proto.TTYAttached)
	return err == nil && f != nil, err
}

// refusedOr is the refusal a daemon sent before it hung up, if a write
// to it failed because it did (a daemon of the Rust port answers the
// first frame it does not accept with ATTACH_REFUSED and closes); else
// err. The reason is what the user needs, not the broken pipe.
func (c *Conn) refusedOr(err error) error {
	c.Raw().SetReadDeadline(time.Now().Add(time.Second))
	defer c.Raw().SetReadDeadline(time.Time{})
	for {
		_, rerr := c.Next()
		var refused *RefusedError
		if errors.As(rerr, &refused) {
			return rerr
		}
		if rerr != nil {
			return err
		}
	}
}

// lost is err, a write that failed, as the connection's loss (the peer
// went away before the baseline: no sign that the session ended), unless
// it is the daemon's refusal.
func (c *Conn) lost(err error) error {
	var refused *RefusedError
	if errors.As(err, &refused) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrConnectionLost, err)
}

// probe sends a STATUS request behind a request just sent and returns
// the reply of type want that comes before the STATUS reply, or nil if
// the STATUS reply comes alone: a daemon that does not know the request
// (the original's, an older one of ours) ignores it.
func (c *Conn) probe(want proto.Type) (*proto.Frame, error) {
	if err := c.WriteFrame(proto.Status, nil); err != nil {
		return nil, err
	}
	for {
		f, err := c.Next()
		if err != nil {
			return nil, err
		}
		switch f.Type {
		case want:
			return &f, nil
		case proto.Status:
			return nil, nil
		}
	}
}

// waitHanded is the attach once the daemon has the terminal: it forwards
// resizes and waits for the daemon to say the user detached (DETACH) or
// the session ended (EXIT), which it sends once the last output is on the
// screen.
func waitHanded(c *Conn, o AttachOptions, st *term.State, rows, cols int, stop <-chan os.Signal) (Result, string, error) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	ended := make(chan frameOrErr, 1)
	go func() {
		for {
			f, err := c.Next()
			if err != nil || f.Type == proto.Exit || f.Type == proto.Detach || f.Type == proto.SwitchTo {
				ended <- frameOrErr{f, err}
				return
			}
		}
	}()
	for {
		select {
		case fe := <-ended:
			switch {
			case fe.err != nil:
				finishOn(o, st, fmt.Sprintf("[lost connection to %s]", o.Name))
				return Result{}, "", fmt.Errorf("session %s: %w: %w", o.Name, ErrConnectionLost, fe.err)
			case fe.f.Type == proto.Detach:
				finishOn(o, st, "[detached]")
				return Result{Detached: true}, "", nil
			case fe.f.Type == proto.SwitchTo && len(fe.f.Payload) > 0 && o.Switch != nil:
				c.letGo()
				return Result{}, string(fe.f.Payload), nil
			case fe.f.Type == proto.SwitchTo:
				c.letGo()
				finishOn(o, st, "[detached]")
				return Result{Detached: true}, "", nil
			default:
				code := proto.ParseExitCode(fe.f.Payload)
				finishOn(o, st, fmt.Sprintf("[%s exited with code %d]", o.Name, code))
				return Result{Exited: true, Code: code}, "", nil
			}
		case sig := <-stop:
			// The daemon writes to the terminal until it lets go of it,
			// which it does before it closes the connection.
			c.Detach()
			select {
			case <-ended:
			case <-time.After(time.Second):
			}
			finishOn(o, st, "[terminated]")
			return Result{Signal: sig.(syscall.Signal)}, "", nil
		case <-winch:
			r, cl := TermSize(o.OutFile, o.In)
			if r != rows || cl != cols {
				rows, cols = r, cl
				c.WriteFrame(proto.Resize, proto.Size(rows, cols))
			}
		}
	}
}

// IsNotRunning reports whether err means the session's socket is gone.
func IsNotRunning(err error) bool { return errors.Is(err, ErrNotRunning) }

// IgnoreQuitKey keeps a stray Ctrl+\ from killing this process while its
// terminal is not in raw mode (tty.IgnoreQuitKey says how).
func IgnoreQuitKey() { tty.IgnoreQuitKey() }
