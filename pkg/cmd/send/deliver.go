package send

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/keys"
	"github.com/ptyorg/pty/pkg/lifecycle"
	"github.com/ptyorg/pty/pkg/proto"
)

// SendTimeout bounds connecting and the final flush barrier.
const SendTimeout = 10 * time.Second

// Item is one thing Send types: literal bytes, or a --seq item whose
// bytes depend on the session's terminal modes (keys.ItemDependsOnModes),
// encoded when its turn comes for the modes the session is in then.
type Item struct {
	Bytes []byte
	Seq   string
	// From, when set, is read to its end and typed in DATA frames of at
	// most SendPiece bytes each, in order, as the reads return them (so
	// text that trickles in, from a pipe, is typed as it comes).
	From io.Reader
}

// SendPiece is the most Send puts in one DATA frame of an Item's From:
// what the daemon keeps of a DATA frame at once (docs/protocol.md,
// Limits), so a stream of any length costs the daemon no more memory
// than one keystroke's frame, and a send cut off part-way has typed a
// prefix of the text.
const SendPiece = 64 << 10

// Send types items into a session as separate DATA frames, pausing delay
// between them (programs that read keys one read() at a time need the
// gap to tell ESC from an escape sequence, or a paste from typing); paste
// wraps them all in one bracketed paste. It returns once the daemon has
// read every frame: a STATUS request follows the data, and its reply (or
// the daemon closing its side after our half-close) proves everything
// before it was consumed.
//
// Before a key that depends on the modes (an arrow: ESC [ B, or ESC O B
// in application cursor mode), a STATUS request asks for them; its reply
// reflects everything sent before it. A daemon whose reply lacks them
// (the original's) is taken to be in the normal modes.
func Send(root, id string, items []Item, delay time.Duration, paste bool) error {
	c, err := client.DialTimeout(root, id, SendTimeout)
	if err != nil {
		return errs.Sentence(fmt.Sprintf("Session %q is not accepting input: %v", id, err), err)
	}
	defer c.Close()
	return SendOn(c, id, items, delay, paste)
}

// SendOn is Send on an open connection (a route to another host's
// session, say); id names the session in errors.
func SendOn(c *client.Conn, id string, items []Item, delay time.Duration, paste bool) error {
	for i, it := range items {
		if i > 0 && delay > 0 {
			time.Sleep(delay)
		}
		if it.From != nil {
			if err := sendStream(c, id, it.From, paste && i == 0, paste && i == len(items)-1); err != nil {
				return err
			}
			continue
		}
		b := it.Bytes
		if it.Seq != "" {
			m, err := modes(c, id)
			if err != nil {
				return err
			}
			if b, err = keys.ItemFor(it.Seq, m); err != nil {
				return err
			}
		}
		if paste && i == 0 {
			b = append([]byte(lifecycle.PasteStart), b...)
		}
		if paste && i == len(items)-1 {
			b = append(b[:len(b):len(b)], lifecycle.PasteEnd...)
		}
		if len(b) == 0 {
			continue
		}
		c.Raw().SetWriteDeadline(time.Now().Add(SendTimeout))
		if err := c.WriteFrame(proto.Data, b); err != nil {
			return fmt.Errorf("send to %s: %w", id, err)
		}
	}
	c.Raw().SetDeadline(time.Now().Add(SendTimeout))
	// If the program exits right after reading our input, the daemon
	// sends EXIT and closes, and this write can fail with a broken pipe
	// although the data went through; the EXIT frame, read below, tells.
	return confirm(c, id, c.WriteFrame(proto.Status, nil))
}

// ahead is what SendOn would write for items when none of them waits
// for an answer (for the session's modes, or the end of a stream) or a
// pause: their DATA frames and the STATUS request, to go with the
// request for a route and save a round trip; nil otherwise, or when it
// is more than a frame's worth of text.
func ahead(items []Item, delay time.Duration, paste bool) []byte {
	if delay > 0 && len(items) > 1 {
		return nil
	}
	var b []byte
	for i, it := range items {
		if it.From != nil || it.Seq != "" {
			return nil
		}
		p := it.Bytes
		if paste && i == 0 {
			p = append([]byte(lifecycle.PasteStart), p...)
		}
		if paste && i == len(items)-1 {
			p = append(p[:len(p):len(p)], lifecycle.PasteEnd...)
		}
		if len(p) > 0 {
			b = proto.AppendFrame(b, proto.Data, p)
		}
		if len(b) > SendPiece {
			return nil
		}
	}
	return proto.AppendFrame(b, proto.Status, nil)
}

// confirm waits for the daemon to have read what was sent before the
// STATUS request, whose writing failed with statusErr (nil if it went).
func confirm(c *client.Conn, id string, statusErr error) error {
	if statusErr == nil {
		c.Raw().CloseWrite()
	}
	for {
		f, err := c.Next()
		var refused *client.RefusedError
		if errors.As(err, &refused) {
			return refusedInput(id, refused)
		}
		if err != nil && statusErr != nil {
			return fmt.Errorf("send to %s: %w", id, statusErr)
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil // the daemon read to our EOF, so it read the data
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return fmt.Errorf("send to %s: the daemon did not confirm within %v", id, SendTimeout)
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("send to %s: %w", id, err)
		}
		if f.Type == proto.Status || f.Type == proto.Exit {
			return nil
		}
	}
}

// sendStream types r's bytes in frames of at most SendPiece, with the
// paste brackets before and after as asked.
func sendStream(c *client.Conn, id string, r io.Reader, start, end bool) error {
	write := func(b []byte) error {
		c.Raw().SetWriteDeadline(time.Now().Add(SendTimeout))
		if err := c.WriteFrame(proto.Data, b); err != nil {
			return fmt.Errorf("send to %s: %w", id, err)
		}
		return nil
	}
	if start {
		if err := write([]byte(lifecycle.PasteStart)); err != nil {
			return err
		}
	}
	buf := make([]byte, SendPiece)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if werr := write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return errs.Sentence(fmt.Sprintf("Reading the text to send failed: %v; what was read before it was sent to %q", err, id), err)
		}
	}
	if end {
		return write([]byte(lifecycle.PasteEnd))
	}
	return nil
}

// modes asks the daemon for the session's key modes (STATUS).
func modes(c *client.Conn, id string) (keys.Modes, error) {
	raw, err := c.Status(SendTimeout)
	var refused *client.RefusedError
	var exited *client.ExitError
	switch {
	case errors.As(err, &refused):
		return keys.Modes{}, refusedInput(id, refused)
	case errors.As(err, &exited):
		return keys.Modes{}, errs.Sentence(fmt.Sprintf("Session %q ended before everything was sent", id), nil)
	case err != nil:
		return keys.Modes{}, fmt.Errorf("send to %s: asking for the session's key modes: %w", id, err)
	}
	// A reply that lacks them (the original's daemon) or does not read
	// leaves them false: the normal modes.
	st, _ := proto.ParseStatus(raw)
	return keys.Modes{AppCursor: st.Modes.ApplicationCursor, AppKeypad: st.Modes.ApplicationKeypad}, nil
}

// refusedInput: a REFUSED frame is sent instead of reading anything, so
// none of the input went through.
func refusedInput(id string, r *client.RefusedError) error {
	return errs.Sentence(fmt.Sprintf("Session %q refused the input: %s; nothing was sent", id, r.Reason), r)
}
