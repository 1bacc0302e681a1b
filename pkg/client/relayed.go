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
// (pty --remote HOST peek, send, attach); done ends the connection and
// what carries it.
type Router func(ref string) (c *Conn, done func(), err error)
