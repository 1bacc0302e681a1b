package client

import (
	"time"

	"github.com/ptyorg/pty/pkg/proto"
)

// RequestSwitch asks the daemon of session from to move the pty client
// showing it to session to, as tmux's switch-client does
// (docs/protocol.md, "Switching sessions"); an empty to only asks
// whether a client could be moved. It reports whether one was (or could
// be): false, with no error, when no client of this session can switch
// (none is attached writable, or all are of an older kind), or when the daemon does not know switching (the
// original's, or an older one of ours: the STATUS sent behind the
// request is then answered alone).
func RequestSwitch(root, from, to string) (bool, error) {
	c, err := Dial(root, from)
	if err != nil {
		return false, err
	}
	defer c.Close()
	c.Raw().SetDeadline(time.Now().Add(StatusTimeout))
	if err := c.WriteFrame(proto.Switch, []byte(to)); err != nil {
		return false, err
	}
	f, err := c.probe(proto.Switch)
	if err != nil || f == nil {
		return false, err
	}
	return len(f.Payload) == 1 && f.Payload[0] == proto.SwitchOK, nil
}

// letGo detaches from a session that told this client to switch
// (SwitchTo) and waits for the daemon to close the connection: a daemon
// that holds the terminal lets go of it first, so nothing of its lands
// after what the next session writes; a relaying client drops what the
// connection still carries.
func (c *Conn) letGo() {
	c.Detach()
	c.Raw().SetReadDeadline(time.Now().Add(time.Second))
	for {
		if _, err := c.Next(); err != nil {
			return
		}
	}
}

// The terminal's title while attached (AttachOptions.Title): the user's
// own is pushed on xterm's title stack first and popped at the end. The
// pushes and pops name the window and icon titles both (Ps2 0): tmux
// acts on CSI 22/23 t only with the second parameter, and a program's
// OSC 0 in the session changes the icon title too.
const (
	titlePush = "\x1b[22;0t"
	titlePop  = "\x1b[23;0t"
)

// titleSet sets the window title to t, less any control characters a
// display name might hold (they would end the sequence early).
func titleSet(t string) string {
	b := []byte("\x1b]2;")
	for _, r := range t {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			continue
		}
		b = append(b, string(r)...)
	}
	return string(append(b, '\a'))
}
