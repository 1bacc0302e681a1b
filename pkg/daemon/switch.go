package daemon

import "github.com/ptyorg/pty/pkg/proto"

// Switching sessions (docs/protocol.md, "Switching sessions"): a command
// run inside the session (pty switch, pty attach) asks us to move the
// client showing it to another session, as tmux's switch-client does. We
// know which clients can (SWITCH_READY) and which one the user typed into
// last. If we hold that client's terminal, we let go of it as at the
// detach key; a client that relays our frames to its terminal itself
// (macOS, a route over ssh) just gets no more output. Either way we tell
// the client where to go (SWITCH_TO), and it attaches there itself.

// switchFrame handles SWITCH_READY and a SWITCH request from c. It
// returns false once c is gone.
func (d *Daemon) switchFrame(c *client, f proto.Frame) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	c.spoke = true
	if f.Type == proto.SwitchReady {
		c.switchable = true
		return true
	}
	if !d.awaitRepliesLocked(c) {
		return false
	}
	// An empty request only asks whether a client could switch (the
	// picker, before it offers the list).
	reply := proto.SwitchNone
	if id := f.Payload; len(id) <= proto.MaxSwitchID && !d.exited {
		if o := d.switchTargetLocked(c); o != nil {
			if len(id) > 0 {
				d.switchLocked(o, id)
			}
			reply = proto.SwitchOK
		}
	}
	d.enqueueLocked(c, proto.Switch, []byte{reply})
	return true
}

// switchTargetLocked is the client a switch request from c moves: of the
// writable clients that can switch and have not been told to yet, the one
// whose user typed last (or, if nobody typed since, that attached last),
// whether we read its keyboard (a terminal it handed us) or it sends the
// keys as DATA. A command run in the session was typed on some client's
// keyboard, and that is the terminal the user looks at; with several
// attached, tmux picks the most recently active client likewise.
func (d *Daemon) switchTargetLocked(c *client) *client {
	var best *client
	for o := range d.clients {
		if o == c || o.closed || !o.switchable || o.switched || o.role != roleWritable || o.tty != nil && o.keys == nil {
			continue
		}
		if best == nil || o.typed > best.typed {
			best = o
		}
	}
	return best
}

// switchLocked tells c, behind the output queued for its screen, to
// attach to session id, and sends it no more output. A terminal c handed
// us is let go of as detachTTY does (the keyboard at once, then the
// output); a relaying client detaches itself once it reads SWITCH_TO.
func (d *Daemon) switchLocked(c *client, id []byte) {
	if c.keys != nil {
		c.keys.Close()
		c.keys = nil
	}
	c.switched = true
	c.live = false
	d.queueLocked(c, proto.SwitchTo, id)
	d.flushLocked(c)
}

// typedLocked marks c as the terminal client used last.
func (d *Daemon) typedLocked(c *client) {
	d.typedSeq++
	c.typed = d.typedSeq
}
