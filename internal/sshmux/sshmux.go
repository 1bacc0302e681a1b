// Package sshmux runs a command on a host through the control socket of
// an OpenSSH ControlMaster that is already connected to it, as "ssh -S
// PATH HOST CMD" does, but without an ssh process: a "passenger" client
// of OpenSSH's multiplexing protocol (PROTOCOL.mux in openssh-portable).
// The master is sent the command line and, over the socket, the three
// file descriptors the command's streams are to use, and it answers with
// the command's exit status; it does every read and write of the streams
// itself, so nothing of them passes through this process.
//
// pty --remote runs a short command on a host for each peek, list or
// send. The ssh client it would start for each is, on its own, more
// user CPU than the rest of such a command together (it reads its
// crypto library's configuration, the name service's, the password
// database and ssh_config before its first packet to the master), and
// an equal ssh+tmux command pays it only once where pty paid it on top
// of its own starts. No well-kept Go library is a passenger client:
// golang.org/x/crypto/ssh can only put the socket in proxy mode, which
// makes the client speak the SSH connection protocol and carry every
// byte of the streams itself, and links a whole SSH implementation.
//
// It speaks version 4 of the protocol, OpenSSH's. Anything this client
// does not understand is an error before the command is started, so that
// its caller can run ssh instead.
package sshmux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// The messages of the protocol that a passenger client sends or reads.
const (
	msgHello          = 0x00000001
	msgNewSession     = 0x10000002
	msgDenied         = 0x80000002
	msgFailure        = 0x80000003
	msgExit           = 0x80000004
	msgSessionOpened  = 0x80000006
	msgTTYAllocFailed = 0x80000008

	version = 4
	// noEscape turns off the escape character (only meaningful with a
	// terminal, which a passenger of this package never asks for).
	noEscape = 0xffffffff
	// maxPacket bounds what is read from the socket: the master's
	// messages are a few words each.
	maxPacket = 256 << 10
	// maxEnv is how many environment strings the master takes.
	maxEnv = 4096
)

// ErrNoMaster is returned (wrapped) by Start when nothing usable answers
// on the socket: no socket, a stale one, or something that does not
// speak the protocol. Nothing was started on the host.
var ErrNoMaster = errors.New("no ssh master answers on the control socket")

// Session is a command running on the host through the master.
type Session struct {
	c    *net.UnixConn
	id   uint32
	done chan struct{}
	code int
	seen bool // the master said the exit status
}

// Start asks the master listening at path to run cmd (a command line for
// the host's shell, as ssh's command argument) with stdin, stdout and
// stderr as its streams, and returns once the host's side of the session
// is open. env is offered as ssh's client offers its environment (the
// master keeps what its SendEnv allows; os.Environ(), say). wait bounds
// each answer of the master before the session is open.
//
// An error wrapping ErrNoMaster means nothing was asked of the host; any
// other error, that the master refused the session or broke off before
// opening it. In neither case did the command start.
func Start(path, cmd string, env []string, stdin, stdout, stderr *os.File, wait time.Duration) (*Session, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoMaster, err)
	}
	s := &Session{c: c, done: make(chan struct{}), code: 255}
	if err := s.hello(wait); err != nil {
		c.Close()
		return nil, fmt.Errorf("%w: %v", ErrNoMaster, err)
	}
	if err := s.open(cmd, env, stdin, stdout, stderr, wait); err != nil {
		c.Close()
		return nil, err
	}
	go s.waitExit()
	return s, nil
}

func (s *Session) hello(wait time.Duration) error {
	var p packet
	p.u32(msgHello)
	p.u32(version)
	s.c.SetDeadline(time.Now().Add(wait))
	defer s.c.SetDeadline(time.Time{})
	if _, err := s.c.Write(p.bytes()); err != nil {
		return err
	}
	r, err := s.read()
	if err != nil {
		return err
	}
	typ, _ := r.u32()
	ver, ok := r.u32()
	switch {
	case !ok || typ != msgHello:
		return fmt.Errorf("the socket's first message is not a hello (type %#x)", typ)
	case ver != version:
		return fmt.Errorf("the master speaks version %d of the protocol, not %d", ver, version)
	}
	// Extensions (name, value pairs) follow; none is of use here.
	return nil
}

func (s *Session) open(cmd string, env []string, stdin, stdout, stderr *os.File, wait time.Duration) error {
	const rid = 1
	var p packet
	p.u32(msgNewSession)
	p.u32(rid)
	p.str("")       // reserved
	p.u32(0)        // no terminal
	p.u32(0)        // no X11 forwarding
	p.u32(0)        // no agent forwarding
	p.u32(0)        // a command, not a subsystem
	p.u32(noEscape) // escape character
	p.str("")       // terminal type
	p.str(cmd)
	n := 0
	for _, e := range env {
		if n == maxEnv {
			break
		}
		if strings.IndexByte(e, '=') > 0 {
			p.str(e)
			n++
		}
	}
	s.c.SetDeadline(time.Now().Add(wait))
	defer s.c.SetDeadline(time.Time{})
	if _, err := s.c.Write(p.bytes()); err != nil {
		return fmt.Errorf("%w: %v", ErrNoMaster, err)
	}
	// The descriptors go one to a message of one byte, as the master
	// reads them.
	for _, f := range []*os.File{stdin, stdout, stderr} {
		if _, _, err := s.c.WriteMsgUnix([]byte{0}, syscall.UnixRights(int(f.Fd())), nil); err != nil {
			return fmt.Errorf("%w: pass the streams: %v", ErrNoMaster, err)
		}
	}
	r, err := s.read()
	if err != nil {
		// The master went away: it has not opened the session.
		return fmt.Errorf("%w: %v", ErrNoMaster, err)
	}
	typ, _ := r.u32()
	got, _ := r.u32()
	switch {
	case typ == msgSessionOpened && got == rid:
		id, ok := r.u32()
		if !ok {
			return errors.New("the master's answer to the session is cut short")
		}
		s.id = id
		return nil
	case typ == msgDenied || typ == msgFailure:
		why, _ := r.str()
		return fmt.Errorf("the ssh master refused the session: %s", why)
	}
	return fmt.Errorf("the ssh master answered the session with message %#x", typ)
}

// waitExit reads the master's messages until it closes the socket, which
// it does once it has written the last of the command's output and
// closed its copies of the streams.
func (s *Session) waitExit() {
	defer close(s.done)
	defer s.c.Close()
	for {
		r, err := s.read()
		if err != nil {
			return
		}
		typ, _ := r.u32()
		id, _ := r.u32()
		switch {
		case typ == msgTTYAllocFailed:
		case typ == msgExit && id == s.id && !s.seen:
			if code, ok := r.u32(); ok {
				s.code, s.seen = int(code), true
			}
		default:
			return // the master's error: the session is over
		}
	}
}

// Wait waits for the session to end and returns the command's exit
// status. exited is false when the master closed the socket without
// saying one (the command was killed by a signal, or the connection to
// the host broke); code is then 255, as ssh's.
func (s *Session) Wait() (code int, exited bool) {
	<-s.done
	return s.code, s.seen
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close ends the session: the master closes the host's side of it once
// its passenger's socket is gone.
func (s *Session) Close() error { return s.c.Close() }

func (s *Session) read() (*reader, error) {
	var h [4]byte
	if _, err := io.ReadFull(s.c, h[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(h[:])
	if n > maxPacket {
		return nil, fmt.Errorf("a message of %d bytes from the master", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(s.c, b); err != nil {
		return nil, err
	}
	return &reader{b}, nil
}

// packet is a message being built: a length, then SSH's uint32s and
// strings.
type packet struct{ b []byte }

func (p *packet) u32(v uint32) { p.b = binary.BigEndian.AppendUint32(p.b, v) }
func (p *packet) str(s string) { p.u32(uint32(len(s))); p.b = append(p.b, s...) }
func (p *packet) bytes() []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p.b))), p.b...)
}

type reader struct{ b []byte }

func (r *reader) u32() (uint32, bool) {
	if len(r.b) < 4 {
		return 0, false
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v, true
}

func (r *reader) str() (string, bool) {
	n, ok := r.u32()
	if !ok || uint32(len(r.b)) < n {
		return "", false
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s, true
}
