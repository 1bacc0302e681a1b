package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// Paste brackets: a program in bracketed-paste mode takes what is between
// them as one pasted block, not as typed keys.
const (
	PasteStart = "\x1b[200~"
	PasteEnd   = "\x1b[201~"
)

// SendTimeout bounds connecting and the final flush barrier.
const SendTimeout = 10 * time.Second

// Send types items into a session as separate DATA frames, pausing delay
// between them (programs that read keys one read() at a time need the
// gap to tell ESC from an escape sequence, or a paste from typing). It
// returns once the daemon has read every frame: a STATUS request follows
// the data, and its reply (or the daemon closing its side after our
// half-close) proves everything before it was consumed.
func Send(root, id string, items [][]byte, delay time.Duration) error {
	sock := layout.PathsFor(root, id).Sock()
	c, err := net.DialTimeout("unix", sock, SendTimeout)
	if err != nil {
		return fmt.Errorf("Session %q is not accepting input: %v", id, err)
	}
	uc, _ := c.(*net.UnixConn)
	defer c.Close()
	for i, it := range items {
		if i > 0 && delay > 0 {
			time.Sleep(delay)
		}
		if len(it) == 0 {
			continue
		}
		c.SetWriteDeadline(time.Now().Add(SendTimeout))
		if err := proto.WriteFrame(c, proto.Data, it); err != nil {
			return fmt.Errorf("send to %s: %w", id, err)
		}
	}
	c.SetDeadline(time.Now().Add(SendTimeout))
	// If the program exits right after reading our input, the daemon
	// sends EXIT and closes, and this write can fail with a broken pipe
	// although the data went through; the EXIT frame, read below, tells.
	statusErr := proto.WriteFrame(c, proto.Status, nil)
	if uc != nil && statusErr == nil {
		uc.CloseWrite()
	}
	r := proto.NewReader(c)
	for {
		f, err := r.Next()
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
		if f.Type == proto.Refused {
			// Sent instead of reading anything: nothing went through.
			return fmt.Errorf("Session %q refused the input: %s; nothing was sent", id, f.Payload)
		}
		if f.Type == proto.Status || f.Type == proto.Exit {
			return nil
		}
	}
}
