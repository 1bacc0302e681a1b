package client

import (
	"net"

	"github.com/ptyorg/pty/pkg/proto"
)

// Relayed is a connection to a daemon that another process carries: uc
// is one end of a socket pair whose other end is, say, ssh's standard
// input and output, with pty remote-serve splicing it to the session's
// socket on the far side. Everything but handing the terminal to the
// daemon (ATTACH_TTY, which passes descriptors) works as on a session's
// own socket.
func Relayed(uc *net.UnixConn) *Conn {
	return &Conn{c: uc, w: uc, r: proto.NewReader(uc), relayed: true}
}

// Router connects to a session of another host by its reference there
// (pty --remote HOST peek, send, attach), sending early to its daemon
// first (nil for nothing); done ends the connection and what carries it.
type Router func(ref string, early []byte) (c *Conn, done func(), err error)

// PeekAhead is what a one-shot PEEK sends at once: the PEEK and a STATUS
// request, whose reply, queued behind the baseline (and the EXIT of a
// session that has ended), says the baseline is all there is to read.
// Sent early on a route, the peek costs the route's round trip alone.
func PeekAhead(flags byte) []byte {
	b := proto.AppendFrame(nil, proto.Peek, proto.PeekRequest(flags))
	return proto.AppendFrame(b, proto.Status, nil)
}

// ReadPeek reads the answer to PeekAhead: the baseline, and whether an
// EXIT came before the STATUS reply. A daemon that closes the connection
// after the baseline has said all it will.
func (c *Conn) ReadPeek() (Snapshot, error) {
	s, err := c.readBaseline()
	if err != nil {
		return s, err
	}
	for {
		f, err := c.Next()
		if err != nil {
			return s, nil
		}
		switch f.Type {
		case proto.Exit:
			s.Exited, s.Code = true, proto.ParseExitCode(f.Payload)
		case proto.Status:
			return s, nil
		}
	}
}
