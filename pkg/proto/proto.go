// Package proto is the session socket's wire format, shared with the
// original TypeScript pty so either side's clients work with either side's
// daemons: frames of [type u8][length u32 big-endian][payload].
// docs/protocol.md describes the conversation.
package proto

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
)

// Type is a frame's first byte.
type Type uint8

const (
	Data     Type = 0  // raw bytes, either way
	Attach   Type = 1  // client→daemon: rows u16, cols u16; become a writable client
	Detach   Type = 2  // client→daemon, empty: the daemon closes the connection
	Resize   Type = 3  // client→daemon: rows u16, cols u16
	Exit     Type = 4  // daemon→client: int32 exit code
	Screen   Type = 5  // daemon→client: serialized screen baseline
	Peek     Type = 6  // client→daemon: flags byte; become a read-only client
	Status   Type = 7  // client→daemon empty request; daemon→client JSON reply
	Geometry Type = 10 // daemon→client: rows u16, cols u16
	// Frames of the Rust port's daemons, which our clients meet on the
	// same registry. Recovery (11) concerns its embedded mode and is
	// ignored; AttachRefused (12, a UTF-8 reason) refuses the attach, as
	// Refused does.
	Recovery      Type = 11
	AttachRefused Type = 12
	// AttachTTY (client→daemon: rows u16, cols u16, and the user's
	// keyboard and screen as two descriptors in SCM_RIGHTS) hands the
	// terminal itself to the daemon; TTYAttached (daemon→client, empty)
	// says it took it. See docs/protocol.md.
	AttachTTY   Type = 32
	TTYAttached Type = 33
	// AttachTTYKey is AttachTTY with a detach key of the user's choosing
	// after the size, in pty send's key syntax ("ctrl+a", or "none"). A
	// type of its own, so that a daemon that does not know it (an older
	// one of ours would take the terminal with ATTACH_TTY and detach on
	// Ctrl+\) ignores it, and the client relays with its own key.
	AttachTTYKey Type = 35
	// Refused (daemon→client: a UTF-8 reason) is sent instead of any
	// other frame to a connection the daemon will not serve (too many
	// connections), which it then closes.
	Refused Type = 34
	// History (client→daemon: lines u32) is how many lines of scrollback
	// the baseline of the connection's next ATTACH or ATTACH_TTY writes
	// first (without it, all of them). Daemons that do not know it (the
	// original's) ignore it, and send all.
	History Type = 36
)

// ResetModes undoes, on the user's terminal, whatever modes a session may
// have turned on: alternate screen, mouse reporting and its encodings,
// bracketed paste, focus events, application cursor keys and keypad, the
// kitty keyboard stack and xterm's modifyOtherKeys, origin mode, the
// scroll region, colours, a hidden cursor or a changed cursor shape,
// reverse video, autowrap turned off, insert mode, and DEC line drawing
// in G0 or G1 (and G1 shifted in).
const ResetModes = "\x1b[?1049l\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l" +
	"\x1b[?1l\x1b>\x1b[<99u\x1b[>4m\x1b[?6l\x1b[r\x1b[0m\x1b[?25h\x1b[0 q\x1b[?5l\x1b[?7h\x1b[4l\x1b(B\x1b)B\x0f"

// Redraw is how a client draws a SCREEN on the user's terminal, whenever
// it comes: a baseline may also be a resync or a flood's redraw, when the
// terminal holds modes the session has since turned off, so everything is
// reset and cleared first; inside a synchronized update (mode 2026), so a
// terminal that knows it shows the redraw whole.
func Redraw(dst, screen []byte) []byte {
	dst = append(dst, "\x1b[?2026h"+ResetModes+"\x1b[H\x1b[2J"...)
	dst = append(dst, screen...)
	return append(dst, "\x1b[?2026l"...)
}

// RedrawInPlace is Redraw for a terminal that already shows the session
// (a resync or a flood's redraw): rows rows are erased one by one
// instead of with ED 2, which tmux and other terminals answer by pushing
// the visible screen into their scrollback, so that every redraw would
// leave a copy of the screen there. A SCREEN that starts with scrollback
// lines (the lines that scrolled by since the last one) then writes them
// from the top of the blank screen, as the first one does.
func RedrawInPlace(dst, screen []byte, rows int) []byte {
	dst = append(dst, "\x1b[?2026h"+ResetModes...)
	for y := 1; y <= rows; y++ {
		dst = append(dst, "\x1b["...)
		dst = strconv.AppendInt(dst, int64(y), 10)
		dst = append(dst, ";1H\x1b[2K"...)
	}
	dst = append(dst, "\x1b[H"...)
	dst = append(dst, screen...)
	return append(dst, "\x1b[?2026l"...)
}

func (t Type) String() string {
	switch t {
	case Data:
		return "DATA"
	case Attach:
		return "ATTACH"
	case Detach:
		return "DETACH"
	case Resize:
		return "RESIZE"
	case Exit:
		return "EXIT"
	case Screen:
		return "SCREEN"
	case Peek:
		return "PEEK"
	case Status:
		return "STATUS"
	case Geometry:
		return "GEOMETRY"
	case Recovery:
		return "RECOVERY"
	case AttachRefused:
		return "ATTACH_REFUSED"
	case AttachTTY:
		return "ATTACH_TTY"
	case TTYAttached:
		return "TTY_ATTACHED"
	case Refused:
		return "REFUSED"
	case History:
		return "HISTORY"
	}
	return "TYPE(" + strconv.Itoa(int(t)) + ")"
}

// Peek flags.
const (
	PeekPlain byte = 1 << 0 // plain text instead of ANSI
	PeekFull  byte = 1 << 1 // scrollback too, not just the viewport
	// PeekRedraw asks for the baseline a writable client gets (the exact
	// screen, cursor and modes, as Screen.Redraw) while staying read-only:
	// a client that keeps its own emulator (pty web) can then apply the
	// live stream on top of it. It overrides the plain bit; with PeekFull
	// the scrollback comes first, as ATTACH's history, and with
	// PeekFollow a flood's redraws bring the lines that scrolled by since
	// the previous one, as a writable client's do.
	PeekRedraw byte = 1 << 2
	// PeekFollow asks that the text form (bits 0 and 2 clear) end, after
	// the move to the cursor, with what the program's next output depends
	// on: its pen, character sets, a pending wrap, and the modes that
	// change where text lands or whether the cursor shows. A reader that
	// goes on drawing the live stream (peek -f) sets it; a daemon that does
	// not know it (the original's) leaves it out. A follower is someone
	// watching, to our daemon: it records lastAttachAt and clears the
	// activity markers (docs/protocol.md, Roles), so a program that only
	// samples the screen asks without it.
	PeekFollow byte = 1 << 3
)

// MaxPayload is the largest payload a peer may send; a larger one means a
// confused or hostile peer, and the connection is dropped.
const MaxPayload = 32 << 20

// HeaderLen is the size of a frame header.
const HeaderLen = 5

// MaxScreen is the largest payload a Reader (a client) takes from a
// daemon. A SCREEN baseline can be larger than anything a client sends:
// a 1000x1000 screen with a colour and attributes per cell serializes to
// about 40 MB.
const MaxScreen = 64 << 20

// ErrTooLarge is returned for a frame over the reader's limit: MaxPayload
// for the daemon, MaxScreen for a Reader.
var ErrTooLarge = errors.New("frame too large")

// Frame is one decoded frame.
type Frame struct {
	Type    Type
	Payload []byte
}

// AppendHeader appends a frame header, for a payload of n bytes that the
// caller writes after it.
func AppendHeader(dst []byte, t Type, n int) []byte {
	return binary.BigEndian.AppendUint32(append(dst, byte(t)), uint32(n))
}

// ParseHeader decodes the HeaderLen bytes of h: the frame's type and its
// payload's length, which the caller bounds (MaxPayload, MaxScreen)
// before it converts it to an int.
func ParseHeader(h []byte) (Type, uint32) {
	return Type(h[0]), binary.BigEndian.Uint32(h[1:HeaderLen])
}

// AppendFrame appends the encoding of a frame to dst.
func AppendFrame(dst []byte, t Type, payload []byte) []byte {
	return append(AppendHeader(dst, t, len(payload)), payload...)
}

// WriteFrame writes one frame with a single Write call, so frames from one
// writer never interleave on a stream written by several goroutines that
// share a mutex per Write.
func WriteFrame(w io.Writer, t Type, payload []byte) error {
	buf := AppendFrame(make([]byte, 0, HeaderLen+len(payload)), t, payload)
	_, err := w.Write(buf)
	return err
}

// Reader decodes frames from a stream.
type Reader struct {
	r *bufio.Reader
}

// NewReader wraps r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64<<10)} }

// Buffered is how many bytes have been read from the stream but not yet
// returned as frames.
func (r *Reader) Buffered() int { return r.r.Buffered() }

// BufferedType is the type of the next frame when its first byte has
// already been read from the stream; ok is false when nothing is
// buffered. It never reads.
func (r *Reader) BufferedType() (t Type, ok bool) {
	if r.r.Buffered() == 0 {
		return 0, false
	}
	b, _ := r.r.Peek(1)
	return Type(b[0]), true
}

// Next reads the next frame. The payload is freshly allocated and owned by
// the caller. io.EOF at a frame boundary; io.ErrUnexpectedEOF inside one.
func (r *Reader) Next() (Frame, error) {
	var h [HeaderLen]byte
	if _, err := io.ReadFull(r.r, h[:]); err != nil {
		return Frame{}, err
	}
	t, size := ParseHeader(h[:])
	if size > MaxScreen {
		return Frame{}, ErrTooLarge
	}
	n := int(size)
	// Grown as the bytes arrive rather than allocated from the header: a
	// peer that claims 32 MiB and sends five bytes costs five bytes.
	p := make([]byte, 0, min(n, growFrom))
	for len(p) < n {
		if len(p) == cap(p) {
			np := make([]byte, len(p), len(p)+min(n-len(p), cap(p)))
			copy(np, p)
			p = np
		}
		k, err := r.r.Read(p[len(p):min(cap(p), n)])
		p = p[:len(p)+k]
		if err != nil && len(p) < n {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
	}
	return Frame{Type: t, Payload: p}, nil
}

// growFrom is the payload buffer Next starts with.
const growFrom = 64 << 10

// NextStreaming is Next, except that a DATA payload is not gathered into
// one allocation: it is handed to data in pieces as they arrive, straight
// from the read buffer (valid only during the call), and the frame
// returned for it has no payload. An attached client copies a burst of
// output to its terminal this way without allocating per frame.
func (r *Reader) NextStreaming(data func([]byte)) (Frame, error) {
	h, err := r.r.Peek(HeaderLen)
	if err != nil {
		if err == io.EOF && len(h) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	t, size := ParseHeader(h)
	if t != Data {
		return r.Next()
	}
	if size > MaxScreen {
		return Frame{}, ErrTooLarge
	}
	n := int(size)
	r.r.Discard(HeaderLen)
	for n > 0 {
		if r.r.Buffered() == 0 {
			if _, err := r.r.Peek(1); err != nil {
				return Frame{}, io.ErrUnexpectedEOF
			}
		}
		b, _ := r.r.Peek(min(n, r.r.Buffered()))
		data(b)
		r.r.Discard(len(b))
		n -= len(b)
	}
	return Frame{Type: Data}, nil
}

// MaxRows and MaxCols bound a session's size. The wire carries up to
// 65535 each way, but the emulator allocates rows*cols cells (and the
// scrollback as many columns per line): a single ATTACH of 65535x65535
// would ask for tens of gigabytes. Larger requests are clamped to these.
const (
	MaxRows = 1000
	MaxCols = 1000
)

// ClampSize brings a requested size within 1..MaxRows and 1..MaxCols.
func ClampSize(rows, cols int) (int, int) {
	return min(max(rows, 1), MaxRows), min(max(cols, 1), MaxCols)
}

// Size encodes rows and cols for ATTACH, RESIZE and GEOMETRY.
func Size(rows, cols int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint16(b[0:], clampU16(rows))
	binary.BigEndian.PutUint16(b[2:], clampU16(cols))
	return b[:]
}

// ParseSize decodes a size payload; ok is false when it is too short or
// either dimension is zero.
func ParseSize(p []byte) (rows, cols int, ok bool) {
	if len(p) < 4 {
		return 0, 0, false
	}
	rows, cols = int(binary.BigEndian.Uint16(p[0:])), int(binary.BigEndian.Uint16(p[2:]))
	return rows, cols, rows > 0 && cols > 0
}

// PeekRequest encodes a PEEK payload: one byte of Peek flags.
func PeekRequest(flags byte) []byte { return []byte{flags} }

// ParsePeek decodes a PEEK payload; a missing byte means no flags, as in
// the original.
func ParsePeek(p []byte) byte {
	if len(p) == 0 {
		return 0
	}
	return p[0]
}

// AttachKey encodes an ATTACH_TTY_KEY payload: the size, then the detach
// key in pty send's key syntax ("ctrl+a", or "none").
func AttachKey(rows, cols int, key string) []byte {
	return append(Size(rows, cols), key...)
}

// ParseAttachKey decodes an ATTACH_TTY_KEY payload; ok is false as for
// ParseSize. The key is not checked here (see internal/detachkey).
func ParseAttachKey(p []byte) (rows, cols int, key string, ok bool) {
	if rows, cols, ok = ParseSize(p); !ok {
		return 0, 0, "", false
	}
	return rows, cols, string(p[4:]), true
}

// HistoryLines is the payload of HISTORY.
func HistoryLines(n int) []byte {
	return binary.BigEndian.AppendUint32(nil, uint32(min(uint64(max(n, 0)), math.MaxUint32)))
}

// ParseHistory decodes a HISTORY payload; ok is false when it is short.
func ParseHistory(p []byte) (n int, ok bool) {
	if len(p) < 4 {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(p)), true
}

// ExitCode encodes an EXIT payload.
func ExitCode(code int) []byte {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(int32(code)))
	return b[:]
}

// ParseExitCode decodes an EXIT payload; a short one means -1, as in the
// original.
func ParseExitCode(p []byte) int {
	if len(p) < 4 {
		return -1
	}
	return int(int32(binary.BigEndian.Uint32(p)))
}

func clampU16(v int) uint16 {
	if v < 0 {
		return 0
	}
	if v > 0xffff {
		return 0xffff
	}
	return uint16(v)
}
