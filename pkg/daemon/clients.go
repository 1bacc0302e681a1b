package daemon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/rawio"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// directMax bounds the queue flush may write from the caller's
// goroutine: bigger ones (output bursts) go through the writer goroutine
// so that the pump is back at the pty sooner.
const directMax = 64 << 10

func (d *Daemon) acceptLoop() {
	for {
		conn, err := d.ln.AcceptUnix()
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and friends: back off, keep serving
			continue
		}
		uid, err := peerUID(conn)
		if err != nil || !PeerAllowed(uid, os.Getuid()) {
			conn.Close()
			continue
		}
		c := &client{conn: conn, wake: make(chan struct{}, 1)}
		c.raw, _ = conn.SyscallConn()
		d.mu.Lock()
		if d.clients == nil {
			d.mu.Unlock()
			conn.Close()
			continue
		}
		d.clients[c] = struct{}{}
		if d.exited {
			d.enqueue(c, proto.Exit, proto.ExitCode(d.exitCode))
		}
		d.mu.Unlock()
		go d.writeLoop(c)
		go d.readLoop(c)
	}
}

// PeerAllowed is the socket's access rule: only the session owner's uid.
// The socket's mode already says so; this holds even if a parent
// directory's or the socket's mode is loosened by mistake.
func PeerAllowed(peer, self int) bool { return peer == self }

// enqueue queues a frame for c and sends what it can at once (see
// flush). Called under d.mu; never blocks.
func (d *Daemon) enqueue(c *client, t proto.Type, payload []byte) {
	d.queue(c, t, payload)
	d.flush(c)
}

// queue appends a frame to c's queue. Called under d.mu; never blocks.
// A queue that would pass MaxQueue is dropped and the client marked for a
// fresh baseline, which its writer takes when it is ready for more.
func (d *Daemon) queue(c *client, t proto.Type, payload []byte) {
	if c.closed {
		return
	}
	if c.tty != nil {
		switch t {
		case proto.Data:
		case proto.Screen:
			if !c.overflow {
				c.pending = proto.Redraw(c.pending, payload)
			}
			return
		case proto.Geometry:
			return // the terminal knows its size
		default:
			c.ctl = proto.AppendFrame(c.ctl, t, payload)
			return
		}
	}
	if c.overflow {
		return
	}
	if len(c.pending) > 0 && len(c.pending)+proto.HeaderLen+len(payload) > MaxQueue {
		if t == proto.Exit || !c.live {
			// EXIT and replies are never dropped; they are tiny.
			c.pending = c.appendOut(c.pending, t, payload)
		} else {
			c.pending = nil
			c.overflow = true
		}
	} else {
		c.pending = c.appendOut(c.pending, t, payload)
	}
}

// appendOut appends output for c: a frame, or for a terminal the bytes.
func (c *client) appendOut(b []byte, t proto.Type, payload []byte) []byte {
	if c.tty != nil {
		return append(b, payload...)
	}
	return proto.AppendFrame(b, t, payload)
}

// flush hands c's queue to its writer goroutine, except that when the
// writer holds nothing and the queue is small, it first makes one
// non-blocking attempt to write the queue itself: a keystroke's echo or a
// peek's screen then skips the writer's wake-up. The frames queued since
// the last flush go out in one write, so a client that reads a baseline
// also has the EXIT queued with it. Called under d.mu.
func (d *Daemon) flush(c *client) {
	if c.closed || (len(c.pending) == 0 && len(c.ctl) == 0 && !c.overflow) {
		return
	}
	if !c.busy && !c.overflow && len(c.pending) <= directMax {
		out := c.raw
		if c.tty != nil {
			out = c.ttyRaw
		}
		c.pending = writeNow(out, c.pending)
		if len(c.pending) == 0 {
			// A terminal client's socket frames, behind its output.
			c.ctl = writeNow(c.raw, c.ctl)
		}
		if len(c.pending) == 0 && len(c.ctl) == 0 {
			return
		}
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// writeNow makes one non-blocking attempt to write b to out and returns
// what is left of it, moved to the front. Called under d.mu.
func writeNow(out syscall.RawConn, b []byte) []byte {
	if len(b) == 0 || out == nil {
		return b
	}
	n := 0
	out.Write(func(fd uintptr) bool {
		var err error
		n, err = rawio.Write(int(fd), b)
		if err != nil {
			n = 0 // EAGAIN, or a failure the writer will meet too
		}
		return true // never wait: the caller holds d.mu
	})
	return b[:copy(b, b[n:])]
}

// baseline appends GEOMETRY and SCREEN for c's role. Called under d.mu.
func (d *Daemon) baseline(c *client) {
	d.queue(c, proto.Geometry, proto.Size(d.rows, d.cols))
	d.queue(c, proto.Screen, d.screenFor(c))
}

func (d *Daemon) screenFor(c *client) []byte {
	if c.role == roleWritable || c.flags&proto.PeekRedraw != 0 {
		return d.screen.Redraw()
	}
	full := c.flags&proto.PeekFull != 0
	// No trailing blank lines, as the original daemon sends it: its
	// clients (peek, peek --wait) print the payload as is, and a screen
	// with three lines of output should not print twenty blank ones.
	if c.flags&proto.PeekPlain != 0 {
		return []byte(strings.TrimRight(d.screen.PlainText(full), "\n"))
	}
	return bytes.TrimRight(d.screen.ANSI(full), "\n")
}

// writeLoop sends c's queue. It swaps the queue for a spare buffer under
// the lock and writes outside it, so the pump only ever appends to memory.
func (d *Daemon) writeLoop(c *client) {
	for range c.wake {
		d.mu.Lock()
		if c.closed {
			d.mu.Unlock()
			return
		}
		if c.overflow {
			c.overflow = false
			c.pending = c.pending[:0]
			d.baseline(c)
		}
		buf, ctl := c.pending, c.ctl
		c.pending = c.spare[:0]
		c.spare, c.ctl = nil, nil
		c.busy = len(buf) > 0 || len(ctl) > 0
		out := c.conn
		if c.tty != nil {
			out = c.tty
		}
		d.mu.Unlock()
		if !c.busy {
			continue
		}
		var err error
		if len(buf) > 0 {
			_, err = out.Write(buf)
		}
		if err == nil && len(ctl) > 0 {
			_, err = c.conn.Write(ctl)
		}
		d.mu.Lock()
		c.busy = false
		// Keep a burst's buffer only if it is modest: an idle client
		// should cost almost nothing.
		if cap(buf) <= 256<<10 {
			c.spare = buf[:0]
		}
		if len(c.pending) == 0 && cap(c.pending) > 256<<10 {
			c.pending = nil
		}
		d.mu.Unlock()
		if err != nil {
			d.drop(c)
			return
		}
	}
}

// drop forgets a client and renegotiates the size if it was a writer.
func (d *Daemon) drop(c *client) {
	d.mu.Lock()
	if !c.closed {
		c.closed = true
		c.conn.Close()
		c.closeTTY()
	}
	if _, ok := d.clients[c]; ok {
		delete(d.clients, c)
		if c.role == roleWritable {
			d.writers--
			d.renegotiate()
		}
		c.pending, c.spare = nil, nil
		close(c.wake)
	}
	d.mu.Unlock()
}

func (d *Daemon) readLoop(c *client) {
	defer d.drop(c)
	var r frameReader
	fds := &fdReader{rc: c.raw}
	defer fds.closeAll()
	if c.raw != nil {
		r.r = fds
	} else {
		r.r = c.conn
	}
	for {
		f, err := r.next()
		if err != nil {
			return // EOF, a broken frame or one over 32 MiB: drop the peer
		}
		switch f.Type {
		case proto.Data:
			d.mu.Lock()
			ro := c.role == roleReadonly
			d.mu.Unlock()
			if !ro && len(f.Payload) > 0 {
				if d.writeInput(f.Payload) != nil {
					return
				}
			}
		case proto.Attach:
			rows, cols, ok := proto.ParseSize(f.Payload)
			if !ok {
				continue
			}
			d.mu.Lock()
			if c.role != roleWritable {
				d.writers++
			}
			c.role, c.rows, c.cols = roleWritable, rows, cols
			d.sync(c)
			d.mu.Unlock()
			select {
			case d.attached <- struct{}{}:
			default:
			}
		case proto.AttachTTY:
			d.attachTTY(c, f.Payload, fds.take())
		case proto.Peek:
			var flags byte
			if len(f.Payload) > 0 {
				flags = f.Payload[0]
			}
			d.mu.Lock()
			if c.role == roleWritable {
				d.writers--
			}
			c.role, c.flags = roleReadonly, flags
			d.sync(c)
			d.mu.Unlock()
		case proto.Resize:
			rows, cols, ok := proto.ParseSize(f.Payload)
			if !ok {
				continue
			}
			d.mu.Lock()
			if c.role == roleWritable {
				c.rows, c.cols = rows, cols
				d.renegotiate()
			}
			d.mu.Unlock()
		case proto.Detach:
			return
		case proto.Status:
			b := d.status()
			d.mu.Lock()
			d.enqueue(c, proto.Status, b)
			d.mu.Unlock()
		default:
			// Unknown types are ignored, for newer clients.
		}
	}
}

// sync (re)starts c's stream after ATTACH or PEEK: renegotiate the size,
// drop whatever was queued for its previous role, then GEOMETRY and the
// baseline, and from now on live output. All of it under d.mu, so no pump
// chunk falls between the baseline and the live stream or lands in both.
func (d *Daemon) sync(c *client) {
	d.renegotiate()
	c.pending = c.pending[:0]
	c.overflow = false
	d.baseline(c)
	c.live = true
	c.stale = false
	if d.exited {
		d.queue(c, proto.Exit, proto.ExitCode(d.exitCode))
	}
	d.flush(c)
}

// renegotiate applies the geometry rule: rows and cols are each the
// minimum over writable clients; with none, the size stays. Called under
// d.mu.
func (d *Daemon) renegotiate() {
	rows, cols := 0, 0
	for c := range d.clients {
		if c.role != roleWritable || c.closed {
			continue
		}
		if rows == 0 || c.rows < rows {
			rows = c.rows
		}
		if cols == 0 || c.cols < cols {
			cols = c.cols
		}
	}
	if rows == 0 || cols == 0 || (rows == d.rows && cols == d.cols) {
		return
	}
	d.rows, d.cols = rows, cols
	if !d.exited {
		setSize(d.ptmx, rows, cols)
	}
	d.screen.Resize(rows, cols)
	for o := range d.clients {
		if o.live {
			d.enqueue(o, proto.Geometry, proto.Size(rows, cols))
		}
	}
}

// StatusReply is the STATUS frame's JSON.
type StatusReply struct {
	Name     string         `json:"name"`
	Terminal StatusTerminal `json:"terminal"`
	Process  StatusProcess  `json:"process"`
	Daemon   StatusDaemon   `json:"daemon"`
	Clients  StatusClients  `json:"clients"`
	Modes    StatusModes    `json:"modes"`
	Uptime   float64        `json:"uptimeSeconds"`
	Created  string         `json:"createdAt"`
}

type StatusTerminal struct {
	Cols               int `json:"cols"`
	Rows               int `json:"rows"`
	CursorX            int `json:"cursorX"`
	CursorY            int `json:"cursorY"`
	ScrollbackUsed     int `json:"scrollbackUsed"`
	ScrollbackCapacity int `json:"scrollbackCapacity"`
}

type StatusProcess struct {
	Alive     bool       `json:"alive"`
	ExitCode  *int       `json:"exitCode"`
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

type StatusDaemon struct {
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

// Resources is a process's memory and CPU use; nil where unavailable.
type Resources struct {
	RssKb      int64   `json:"rssKb"`
	CPUPercent float64 `json:"cpuPercent"`
}

type StatusClients struct {
	Total       int          `json:"total"`
	Attached    int          `json:"attached"`
	ReadOnly    int          `json:"readOnly"`
	Connections []StatusConn `json:"connections"`
}

type StatusConn struct {
	Role string `json:"role"`
	Rows int    `json:"rows,omitempty"`
	Cols int    `json:"cols,omitempty"`
}

type StatusModes struct {
	SGRMouse      bool `json:"sgrMouse"`
	CursorHidden  bool `json:"cursorHidden"`
	KittyKeyboard bool `json:"kittyKeyboard"`
	// KittyKeyboardFlags is a stack, as the original sends it (its stats
	// joins it); ours holds the flags in effect, or nothing.
	KittyKeyboardFlags []int `json:"kittyKeyboardFlags"`
}

func (d *Daemon) status() []byte {
	var s StatusReply
	s.Name = d.id
	if m, err := layout.ReadMetadata(d.root, d.id); err == nil {
		s.Name = m.Name(d.id)
	}
	d.mu.Lock()
	rows, cols := d.screen.Size()
	y, x, _ := d.screen.Cursor()
	s.Terminal = StatusTerminal{Cols: cols, Rows: rows, CursorX: x, CursorY: y,
		// Used counts the viewport's rows too, as the original does, so it
		// reaches the capacity (rows + scrollback) when history is full.
		ScrollbackUsed: d.screen.ScrollbackLen() + rows, ScrollbackCapacity: rows + scrollback}
	md := d.screen.Modes()
	s.Modes = StatusModes{SGRMouse: md.MouseSGR1006, CursorHidden: md.CursorHidden,
		KittyKeyboard: md.KittyKeyboardFlags != 0, KittyKeyboardFlags: []int{}}
	if md.KittyKeyboardFlags != 0 {
		s.Modes.KittyKeyboardFlags = []int{md.KittyKeyboardFlags}
	}
	s.Clients.Connections = []StatusConn{}
	for c := range d.clients {
		switch c.role {
		case roleWritable:
			s.Clients.Attached++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "writable", Rows: c.rows, Cols: c.cols})
		case roleReadonly:
			s.Clients.ReadOnly++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "readonly"})
		}
	}
	s.Clients.Total = len(d.clients)
	exited, code := d.exited, d.exitCode
	d.mu.Unlock()
	s.Process.Pid = d.child.Pid
	s.Process.Alive = !exited
	if exited {
		s.Process.ExitCode = &code
	} else {
		s.Process.Resources = resourcesOf(d.child.Pid)
	}
	s.Daemon = StatusDaemon{Pid: os.Getpid(), Resources: resourcesOf(os.Getpid())}
	s.Uptime = float64(int64(time.Since(d.started).Seconds())) // whole seconds, as the original
	s.Created = d.created
	b, _ := s.appendJSON(nil)
	return b
}

// frameReader decodes client frames from the socket. Clients send few,
// small frames, so it keeps only a small buffer (proto.Reader keeps 64 KiB
// per connection): enough that a keystroke's frame, header and payload,
// takes one read.
type frameReader struct {
	r        io.Reader
	buf      [64]byte
	off, end int
}

func (fr *frameReader) next() (proto.Frame, error) {
	for fr.end-fr.off < proto.HeaderLen {
		if fr.off > 0 {
			fr.end = copy(fr.buf[:], fr.buf[fr.off:fr.end])
			fr.off = 0
		}
		n, err := fr.r.Read(fr.buf[fr.end:])
		fr.end += n
		if err != nil && fr.end-fr.off < proto.HeaderLen {
			if fr.end > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return proto.Frame{}, err
		}
	}
	hdr := fr.buf[fr.off : fr.off+proto.HeaderLen]
	fr.off += proto.HeaderLen
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > proto.MaxPayload {
		return proto.Frame{}, proto.ErrTooLarge
	}
	t := proto.Type(hdr[0])
	p := make([]byte, n)
	k := copy(p, fr.buf[fr.off:fr.end])
	fr.off += k
	if fr.off == fr.end {
		fr.off, fr.end = 0, 0
	}
	if _, err := io.ReadFull(fr.r, p[k:]); err != nil {
		return proto.Frame{}, io.ErrUnexpectedEOF
	}
	return proto.Frame{Type: t, Payload: p}, nil
}
