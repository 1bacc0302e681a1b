// Package remoteserve is "pty remote-serve": the host side of remote
// sessions. A client reaches this host through a transport it trusts (ssh,
// or a tunnel that hands over a socket) and sends one JSON request line:
// list the sessions, or route the connection to one session's socket,
// after which the ordinary per-session protocol (docs/protocol.md) runs
// over the hop unchanged. The lines are the original pty's (its
// src/remote.ts), so its clients and ours can use each other's hosts.
// docs/remote.md describes the protocol, its limits and its security
// model. cmd/pty-remote-serve only parses the command line and calls Run.
package remoteserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

const usage = `pty remote-serve --stdio
       pty remote-serve --socket PATH
       pty remote-serve --run ARGS`

// Limits of one interaction (docs/remote.md).
const (
	// MaxRequestLine bounds the request line, newline included. The two
	// requests are a few dozen bytes plus a session reference.
	MaxRequestLine = 4096
	// RequestWait is how long the request line may take to arrive.
	RequestWait = 10 * time.Second
	// MaxConns bounds the connections --socket serves at once; one more
	// gets an error line and is closed.
	MaxConns = 64
)

// requestWaitEnv shortens RequestWait, for the tests of the timeout only.
const requestWaitEnv = "PTY_REMOTE_SERVE_REQUEST_WAIT"

// Options are remote-serve's flags.
type Options struct {
	Stdio  bool   // --stdio: one interaction on stdin and stdout
	Socket string // --socket PATH: serve on a Unix socket until killed
	Run    string // --run ARGS: run pty with the arguments ARGS encodes
	// RequestWait overrides the package's RequestWait when positive.
	RequestWait time.Duration
}

// Command declares remote-serve's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("remote-serve", usage)
	c.Long = `Serves this host's sessions to a pty on another machine. It is started by
the transport, not by hand: the client runs "ssh HOST pty remote-serve --stdio"
(or a tunnel runs it once per connection), sends one request line and, for
route, speaks the ordinary session protocol over the same stream.

Requests (one JSON line):
  {"op":"list"}              -> {"sessions":[{"name","status","command",
                                "cwd","tags","displayName","createdAt",
                                "exitedAt","exitCode","signal","activity"}],
                                "now"}, then the end
  {"op":"route","name":REF}  -> {"ok":true}, then bytes flow both ways
                                between the stream and session REF
Errors are one line {"error":"..."}: malformed request, unknown op: X,
session "REF" not found. The exit status is 0 either way.

Limits: the request line is at most 4096 bytes and must arrive within 10 s.
--socket serves at most 64 connections at once.

--run ARGS runs "pty" with the arguments ARGS encodes (EncodeArgs: unpadded
URL-safe base64 of the arguments joined by NUL, at most 64 KiB of them),
after writing the byte 0x1e on standard error: it is how "pty --remote HOST
COMMAND" runs a command on this host whatever the login shell, since no
shell reads the encoded word.

Only the registry of the user it runs as is served ($PTY_ROOT or --root,
as for every command); who may run it is the transport's business (ssh's
authorized_keys). See docs/remote.md.`
	c.Flags.BoolVar(&o.Stdio, "stdio", false, "serve one request on stdin and stdout, then exit")
	c.Flags.StringVar(&o.Socket, "socket", "", "serve on the Unix socket `PATH` (mode 0600) until stopped")
	c.Flags.StringVar(&o.Run, "run", "", "run pty with the encoded arguments `ARGS` (what pty --remote sends)")
	c.Values("socket", cli.ValueFile)
	return c
}

// Run serves o's way against io.
func Run(o Options, cio cli.IO) error {
	if o.Run != "" {
		if o.Stdio || o.Socket != "" {
			return errors.New("--run goes alone, without --stdio or --socket (see 'pty remote-serve --help')")
		}
		return RunArgs(o.Run)
	}
	if o.Stdio == (o.Socket != "") {
		return errors.New("give exactly one of --stdio, --socket PATH or --run ARGS (see 'pty remote-serve --help')")
	}
	wait := o.RequestWait
	if v := cio.Getenv(requestWaitEnv); wait <= 0 && v != "" {
		d, err := duration.Parse(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q is not a positive duration: write %s", requestWaitEnv, v, duration.Forms)
		}
		wait = d
	}
	if wait <= 0 {
		wait = RequestWait
	}
	s := &server{root: cio.Root, wait: wait}
	if o.Stdio {
		if cio.In == nil {
			return errors.New("remote-serve --stdio needs a standard input")
		}
		s.serve(cio.In, cio.Out, nil)
		return nil
	}
	return s.listen(o.Socket, cio)
}

type server struct {
	root string
	wait time.Duration
}

// serve runs one interaction: in and out are the client's stream (the
// same connection under --socket). closeWrite, when not nil, half-closes
// out. It returns when the interaction is over; under --stdio a read of
// in may still be pending then, ended by the process's exit.
func (s *server) serve(in io.Reader, out io.Writer, closeWrite func()) {
	br := bufio.NewReaderSize(in, MaxRequestLine)
	line, err := s.readRequest(br)
	if err != nil {
		if err != io.EOF {
			writeLine(out, errorLine(err.Error()))
		}
		return
	}
	resp, target := s.dispatch(line)
	if target == nil {
		writeLine(out, resp)
		return
	}
	defer target.Close()
	if writeLine(out, okLine) != nil {
		return
	}
	splice(br, out, target, closeWrite)
}

// readRequest reads the request line within s.wait. EOF before a whole
// line gives io.EOF: the client went away without asking anything.
func (s *server) readRequest(br *bufio.Reader) ([]byte, error) {
	type result struct {
		line []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := br.ReadSlice('\n')
		ch <- result{bytes.Clone(line), err}
	}()
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case r := <-ch:
		switch {
		case errors.Is(r.err, bufio.ErrBufferFull):
			return nil, fmt.Errorf("request line longer than %d bytes", MaxRequestLine)
		case r.err != nil:
			return nil, io.EOF
		}
		return r.line, nil
	case <-t.C:
		return nil, fmt.Errorf("no request line within %v", s.wait)
	}
}

var okLine = []byte(`{"ok":true}`)

func errorLine(msg string) []byte {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	return b
}

func writeLine(w io.Writer, b []byte) error {
	// A copy: okLine is shared by the connections served at once.
	_, err := w.Write(append(b[:len(b):len(b)], '\n'))
	return err
}

// dispatch answers the request line: a response line, or for a route the
// connected session socket (and no line yet).
func (s *server) dispatch(line []byte) ([]byte, *net.UnixConn) {
	var req map[string]json.RawMessage
	if json.Unmarshal(line, &req) != nil || req == nil {
		return errorLine("malformed request"), nil
	}
	op, opOK := jsonString(req["op"])
	name, nameOK := jsonString(req["name"])
	switch {
	case opOK && op == "list":
		return s.list(), nil
	case opOK && op == "route" && nameOK:
		return s.route(name)
	}
	// As the original prints the op: its text, or "undefined" when absent.
	shown := "undefined"
	switch {
	case opOK:
		shown = op
	case len(req["op"]) > 0:
		shown = string(req["op"])
	}
	return errorLine("unknown op: " + shown), nil
}

// jsonString is raw as a string, if it is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// row is one session as list sends it: the original's fields, the
// optional ones left out when empty as it leaves them out, then ours,
// which its clients ignore (they read the fields they know): when the
// session started and ended, how it ended, and its activity markers, named
// as in pty list --json. With the reply's "now" (this host's clock) a
// client measures ages by this host's clock, whatever its own says.
type row struct {
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	Command     string            `json:"command,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Tags        map[string]string `json:"tags,omitempty"`
	DisplayName string            `json:"displayName,omitempty"`
	CreatedAt   string            `json:"createdAt,omitempty"`
	ExitedAt    string            `json:"exitedAt,omitempty"`
	ExitCode    *int              `json:"exitCode,omitempty"`
	Signal      *int              `json:"signal,omitempty"`
	Activity    []string          `json:"activity,omitempty"`
}

func (s *server) list() []byte {
	sessions, err := layout.At(s.root).List()
	if err != nil {
		return errorLine(err.Error())
	}
	rows := make([]row, 0, len(sessions))
	for _, ss := range sessions {
		r := row{Name: ss.ID, Status: string(ss.Shown())}
		if m := ss.Meta; m != nil {
			r.Command, r.Cwd, r.Tags = m.DisplayCommand, m.Cwd, m.Tags
			if m.DisplayName != nil {
				r.DisplayName = *m.DisplayName
			}
			r.CreatedAt, r.ExitedAt, r.ExitCode, r.Signal = m.CreatedAt, m.ExitedAt, m.ExitCode, m.Signal
			r.Activity = m.ActivityMarkers()
		}
		rows = append(rows, r)
	}
	b, err := json.Marshal(struct {
		Sessions []row  `json:"sessions"`
		Now      string `json:"now"`
	}{rows, layout.FormatTime(time.Now())})
	if err != nil {
		return errorLine(err.Error())
	}
	return b
}

func (s *server) route(ref string) ([]byte, *net.UnixConn) {
	notFound := errorLine(fmt.Sprintf("session %q not found", ref))
	ss, err := layout.At(s.root).Resolve(ref)
	if errors.Is(err, layout.ErrNotFound) {
		return notFound, nil
	}
	if err != nil {
		return errorLine(err.Error()), nil
	}
	// Connected as every command connects: only a socket of the
	// registry's owner, never through a symbolic link. A socket that
	// does not answer is a session that is not there, as the original
	// reports it.
	c, err := client.DialSocket(layout.At(s.root).Paths(ss.ID).Sock(), client.DialWait)
	if err != nil {
		return notFound, nil
	}
	return nil, c
}

// splice copies the client's bytes (what br holds after the request line,
// then the rest of its stream) to the session, and the session's to out,
// until the session closes its side. The client's end of input is passed
// on as a half-close, so a client that sends its request and closes still
// reads the whole answer. closeWrite, when not nil, half-closes out when
// the session is done; the caller closes everything else.
func splice(br *bufio.Reader, out io.Writer, target *net.UnixConn, closeWrite func()) {
	go func() {
		io.Copy(target, br)
		target.CloseWrite()
	}()
	io.Copy(out, target)
	if closeWrite != nil {
		closeWrite()
	}
}

// listen serves the protocol on a Unix socket at path until the process
// is stopped.
func (s *server) listen(path string, cio cli.IO) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("--socket %s: %w", path, err)
	}
	if rel, err := filepath.Rel(s.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("--socket %s is inside the registry %s: choose a path outside it", path, s.root)
	}
	if err := clearStale(abs); err != nil {
		return err
	}
	// Created 0600 from the start: the umask is process-wide, and this
	// process does nothing else while it listens.
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: abs, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", path, err)
	}
	// Stopped by a signal, it removes its socket: the next server then
	// finds the path free instead of a stale socket.
	// The connections being served are closed too; each route then ends
	// as the client's end of input would end it.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var (
		mu    sync.Mutex // guards conns
		conns = map[*net.UnixConn]bool{}
	)
	go func() {
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			c.Close()
		}
	}()
	defer ln.Close()
	fmt.Fprintf(cio.Err, "pty remote-serve: serving %s on %s\n", s.root, abs)
	slots := make(chan struct{}, MaxConns)
	var wg sync.WaitGroup
	defer wg.Wait()
	var backoff time.Duration
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("accept on %s: %w", path, err)
			}
			// Out of descriptors and the like: the connections being
			// served will free some; wait a little longer each time.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			fmt.Fprintf(cio.Err, "pty remote-serve: accept: %v; retrying in %v\n", err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		select {
		case slots <- struct{}{}:
		default:
			writeLine(c, errorLine(fmt.Sprintf("too many connections (at most %d): try again later", MaxConns)))
			c.Close()
			continue
		}
		mu.Lock()
		conns[c] = true
		if ctx.Err() != nil {
			c.Close() // accepted as the server was stopped
		}
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer func() {
				c.Close()
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			}()
			s.serve(c, c, func() { c.CloseWrite() })
		}()
	}
}

// clearStale makes path free for a new socket: nothing there, or a socket
// nobody answers on (left by a server that was killed). Anything else is
// refused rather than replaced.
func clearStale(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--socket %s: %w", path, err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("--socket %s exists and is not a socket: remove it or choose another path", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("--socket %s is already being served: stop that server or choose another path", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("--socket %s: remove the stale socket: %w", path, err)
	}
	return nil
}
