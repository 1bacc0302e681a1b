package daemon

import (
	"io"
	"time"

	"github.com/ptyorg/pty/pkg/proto"
)

// Limits on what a client sends (docs/protocol.md, Limits). Client frames
// carry keystrokes, pastes and 4-byte requests, so the daemon never holds
// more than wholeData of a peer's frame: a larger DATA frame (the
// original's pty send puts a whole argument in one) is passed to the
// child in pieces as it arrives, and of any other frame only the first
// ctlMax bytes are kept (ctlKeep: a SWITCH request's session id more),
// the rest skipped.
const (
	wholeData  = 64 << 10
	ctlMax     = 64
	frameStall = 30 * time.Second // a frame's bytes must keep coming
	skipBuf    = 16 << 10
)

// frameReader decodes client frames from the socket. Clients send few,
// small frames, so it keeps only a small buffer (proto.Reader keeps 64 KiB
// per connection): enough that a keystroke's frame, header and payload,
// takes one read. Whatever a peer sends, a call allocates at most
// wholeData bytes.
type frameReader struct {
	r        io.Reader
	buf      [64]byte
	off, end int
	// data takes the payload of a DATA frame over wholeData, piece by
	// piece; the frame is then returned without a payload. Without it,
	// such payloads are skipped.
	data func([]byte) error
	// stall, when set, is called with true when the reader must wait for
	// the rest of a frame it has begun, and with false once the frame is
	// complete: the caller bounds how long a frame may take.
	stall   func(bool)
	stalled bool
}

// read fills the buffer from the stream. inFrame says a frame has begun.
func (fr *frameReader) read(inFrame bool) (int, error) {
	if inFrame && !fr.stalled && fr.stall != nil {
		fr.stalled = true
		fr.stall(true)
	}
	if fr.off > 0 {
		fr.end = copy(fr.buf[:], fr.buf[fr.off:fr.end])
		fr.off = 0
	}
	n, err := fr.r.Read(fr.buf[fr.end:])
	fr.end += n
	return n, err
}

// take moves up to len(p) buffered bytes into p (nil p: discards them)
// and returns how many.
func (fr *frameReader) take(p []byte, max int) int {
	k := min(max, fr.end-fr.off)
	if p != nil {
		copy(p, fr.buf[fr.off:fr.off+k])
	}
	fr.off += k
	if fr.off == fr.end {
		fr.off, fr.end = 0, 0
	}
	return k
}

// fill reads the next n payload bytes into p[:n], or past them when p
// is nil: from the buffer first, then, for more than the buffer holds,
// straight from the stream.
func (fr *frameReader) fill(p []byte, n int) error {
	var skip []byte
	for n > 0 {
		if fr.end > fr.off {
			var dst []byte
			if p != nil {
				dst = p
			}
			k := fr.take(dst, n)
			if p != nil {
				p = p[k:]
			}
			n -= k
			continue
		}
		if p != nil && n >= len(fr.buf) {
			if fr.stall != nil && !fr.stalled {
				fr.stalled = true
				fr.stall(true)
			}
			k, err := fr.r.Read(p[:n])
			p, n = p[k:], n-k
			if err != nil && n > 0 {
				return io.ErrUnexpectedEOF
			}
			continue
		}
		if p == nil && n >= len(fr.buf) {
			// Skipping: in reads of a useful size, into memory that
			// is let go of with the frame.
			if fr.stall != nil && !fr.stalled {
				fr.stalled = true
				fr.stall(true)
			}
			if skip == nil {
				skip = make([]byte, min(n, skipBuf))
			}
			k, err := fr.r.Read(skip[:min(n, len(skip))])
			n -= k
			if err != nil && n > 0 {
				return io.ErrUnexpectedEOF
			}
			continue
		}
		if _, err := fr.read(true); err != nil && fr.end == fr.off {
			return io.ErrUnexpectedEOF
		}
	}
	return nil
}

func (fr *frameReader) next() (proto.Frame, error) {
	f, err := fr.frame()
	if fr.stalled {
		fr.stalled = false
		if err == nil {
			fr.stall(false)
		}
	}
	return f, err
}

func (fr *frameReader) frame() (proto.Frame, error) {
	for fr.end-fr.off < proto.HeaderLen {
		_, err := fr.read(fr.end > fr.off)
		if err != nil && fr.end-fr.off < proto.HeaderLen {
			if fr.end > fr.off && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return proto.Frame{}, err
		}
	}
	t, size := proto.ParseHeader(fr.buf[fr.off : fr.off+proto.HeaderLen])
	fr.off += proto.HeaderLen
	if size > proto.MaxPayload {
		return proto.Frame{}, proto.ErrTooLarge
	}
	n := int(size)
	switch {
	case t != proto.Data:
		p := make([]byte, min(n, ctlKeep(t)))
		if err := fr.fill(p, len(p)); err != nil {
			return proto.Frame{}, err
		}
		if err := fr.fill(nil, n-len(p)); err != nil {
			return proto.Frame{}, err
		}
		return proto.Frame{Type: t, Payload: p}, nil
	case n <= wholeData:
		p := make([]byte, n)
		if err := fr.fill(p, n); err != nil {
			return proto.Frame{}, err
		}
		return proto.Frame{Type: t, Payload: p}, nil
	}
	piece := make([]byte, wholeData)
	for n > 0 {
		k := min(n, len(piece))
		if err := fr.fill(piece, k); err != nil {
			return proto.Frame{}, err
		}
		n -= k
		if fr.data != nil {
			if err := fr.data(piece[:k]); err != nil {
				return proto.Frame{}, err
			}
		}
	}
	return proto.Frame{Type: t}, nil
}

// ctlKeep is how much of a frame other than DATA the daemon keeps: a
// SWITCH request names a session, whose id may be longer than any other
// request; one byte past the longest id tells a longer one apart.
func ctlKeep(t proto.Type) int {
	if t == proto.Switch {
		return proto.MaxSwitchID + 1
	}
	return ctlMax
}
