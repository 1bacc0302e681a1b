package daemon

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/proto"
)

// A client may hand us its terminal (ATTACH_TTY, docs/protocol.md): the
// user's keyboard and screen as descriptors, as tmux's client does with its
// server. We then read the keys and write the output ourselves, and the
// client process only waits, relays resizes and prints the final message.
// A keystroke's echo then does not cross the client process twice: two
// process wake-ups fewer on the way, the most expensive part of the round
// trip after the kernel's own pty hops.

// attachTTY makes c a writable client whose stream goes to the terminal in
// fds (keyboard, screen). Anything else than two descriptors and a size
// (and with ATTACH_TTY_KEY, a detach key) is refused by closing them; the
// client, seeing no TTY_ATTACHED, attaches the ordinary way.
func (d *Daemon) attachTTY(c *client, typ proto.Type, payload []byte, fds []int) {
	rows, cols, ok := parseSize(payload)
	key := detachkey.Default
	if ok && typ == proto.AttachTTYKey {
		var err error
		_, _, spec, _ := proto.ParseAttachKey(payload)
		key, err = detachkey.Parse(spec)
		ok = err == nil
	}
	if !ok || len(fds) != 2 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		unix.SetNonblock(fd, true)
	}
	keys, screen := os.NewFile(uintptr(fds[0]), "keyboard"), os.NewFile(uintptr(fds[1]), "screen")
	krc, err1 := keys.SyscallConn()
	src, err2 := screen.SyscallConn()
	if err1 != nil || err2 != nil {
		keys.Close()
		screen.Close()
		return
	}
	d.mu.Lock()
	if c.closed || c.tty != nil {
		d.mu.Unlock()
		keys.Close()
		screen.Close()
		return
	}
	if c.role != roleWritable {
		d.writers++
	}
	c.role, c.rows, c.cols = roleWritable, rows, cols
	d.requests++
	c.seq = d.requests
	c.history, c.spoke = c.histWant, true
	// Whatever was queued was framed for the socket.
	c.pending, c.spare = nil, nil
	d.recountLocked(c)
	c.tty, c.ttyRaw, c.keys = screen, src, keys
	d.typedLocked(c)
	d.queueLocked(c, proto.TTYAttached, nil)
	d.syncLocked(c)
	d.seenLocked()
	d.mu.Unlock()
	go d.readKeys(c, krc, key)
}

// readKeys forwards what the user types to the session, minus the detach
// key, until the keyboard is closed (detach, or the client gone).
func (d *Daemon) readKeys(c *client, rc syscall.RawConn, key detachkey.Key) {
	k := detachkey.Filter{
		Key:    key,
		Send:   d.writeInput,
		Detach: func() { d.detachTTY(c) },
	}
	kb := rawio.Conn{RC: rc}
	buf := make([]byte, 4096)
	for {
		n, err := kb.Read(buf)
		if n > 0 {
			d.mu.Lock()
			gone := c.keys == nil
			d.typedLocked(c)
			d.mu.Unlock()
			if gone || k.Feed(buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// detachTTY ends a terminal client's attachment at the user's detach key:
// we stop reading the keyboard at once (it is the shell's again), stop the
// output, and tell the client, behind whatever output is still queued for
// the screen; the client prints [detached] and closes the connection.
func (d *Daemon) detachTTY(c *client) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.closed || c.tty == nil || c.keys == nil {
		return
	}
	c.keys.Close()
	c.keys = nil
	c.live = false
	d.queueLocked(c, proto.Detach, nil)
	d.flushLocked(c)
}

// closeTTYLocked lets go of a terminal client's descriptors.
func (c *client) closeTTYLocked() {
	if c.keys != nil {
		c.keys.Close()
		c.keys = nil
	}
	if c.tty != nil {
		c.tty.Close()
	}
}

// maxFDs is how many received descriptors a connection may have waiting
// for the frame that uses them.
const maxFDs = 2

// fdReader reads a client's socket with recvmsg, keeping the descriptors
// that come with the bytes (ATTACH_TTY's) until the frame is decoded.
type fdReader struct {
	rc  syscall.RawConn
	fds []int
	oob [64]byte
}

func (r *fdReader) Read(b []byte) (int, error) {
	var n, oobn int
	var err error
	rerr := r.rc.Read(func(fd uintptr) bool {
		for {
			n, oobn, err = rawio.Recvmsg(int(fd), b, r.oob[:])
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	if rerr != nil {
		return 0, rerr
	}
	if err != nil {
		return 0, err
	}
	if oobn > 0 {
		if msgs, perr := unix.ParseSocketControlMessage(r.oob[:oobn]); perr == nil {
			for _, m := range msgs {
				if fds, ferr := unix.ParseUnixRights(&m); ferr == nil {
					r.fds = append(r.fds, fds...)
				}
			}
			// ATTACH_TTY passes two; more, held until a frame uses
			// them, would let a peer fill the daemon's descriptor
			// table. Keep the latest two.
			for len(r.fds) > maxFDs {
				unix.Close(r.fds[0])
				r.fds = r.fds[1:]
			}
		}
	}
	if n == 0 && len(b) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// take returns the descriptors received so far; the caller owns them.
func (r *fdReader) take() []int {
	fds := r.fds
	r.fds = nil
	return fds
}

// closeAll closes descriptors that came with no frame that used them.
func (r *fdReader) closeAll() {
	for _, fd := range r.take() {
		unix.Close(fd)
	}
}
