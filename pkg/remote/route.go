package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// fabricEnv names the fabric program, as in the original.
const fabricEnv = "PTY_FABRIC_BIN"

// fabricService is the name under which a fabric peer exposes
// remote-serve (the original's ALPN).
const fabricService = "pty-remote"

// Stream is one interaction with a host's remote-serve: a connection
// whose other end is the remote command's standard input and output (or
// fabric's socket), and the ssh process or the master's session carrying
// it.
type Stream struct {
	t    Target
	uc   *net.UnixConn
	cmd  *exec.Cmd // the ssh process, or
	mux  *onMaster // the session on the shared connection's master
	errs *tail
	done chan struct{} // closed when cmd or mux has ended
	code int           // then its exit status, -1 for an ssh killed by a signal
	once sync.Once
}

// serve sends req to t's remote-serve and reads its answer with read,
// trying serveLines in turn while the host's shell finds no program to
// run: the request is ours to send again, and nothing else went.
func (t Target) serve(ctx context.Context, getenv Env, lasting bool, req []byte, read func(*Stream) ([]byte, error)) (*Stream, []byte, error) {
	lines := t.serveLines()
	for i, line := range lines {
		s, err := t.open(ctx, getenv, lasting, line, req)
		if err == nil {
			var b []byte
			if b, err = read(s); err == nil {
				return s, b, nil
			}
		}
		var e *Error
		if !errors.As(err, &e) || !e.missing || i == len(lines)-1 || t.Fabric != "" {
			return nil, nil, err
		}
	}
	return nil, nil, errors.New("unreachable")
}

// open starts the transport to t's remote-serve, running line on the
// host, and sends req: through the shared connection's master when it is
// up and the stream does not last (onMaster), else by running ssh.
func (t Target) open(ctx context.Context, getenv Env, lasting bool, line string, req []byte) (*Stream, error) {
	if t.Fabric != "" {
		return t.openFabric(ctx, getenv, req)
	}
	argv, err := t.sshArgv(getenv, false, line)
	if err != nil {
		return nil, err
	}
	// ssh's standard input and output are one end of a socket pair, the
	// other end ours: a Unix socket connection like a session's, so the
	// client runs over it unchanged, deadlines and half-close included.
	// Under ForkLock, so that no other child inherits them before they
	// are close-on-exec (macOS has no SOCK_CLOEXEC).
	syscall.ForkLock.RLock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("socket pair for ssh: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "route"), os.NewFile(uintptr(fds[1]), "ssh stdio")
	fc, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		theirs.Close()
		return nil, err
	}
	s := &Stream{t: t, uc: fc.(*net.UnixConn), errs: &tail{}, done: make(chan struct{})}
	if !lasting {
		s.mux, _ = t.startOnMaster(getenv, line, theirs, theirs, s.errs)
	}
	if s.mux != nil {
		theirs.Close()
		go func() { s.code = s.mux.wait(); close(s.done) }()
	} else {
		s.cmd = exec.Command(argv[0], argv[1:]...)
		s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = theirs, theirs, s.errs
		s.cmd.WaitDelay = time.Second
		err = s.cmd.Start()
		theirs.Close()
		if err != nil {
			s.uc.Close()
			return nil, fmt.Errorf("start ssh: %w (is OpenSSH's ssh installed?)", err)
		}
		go func() { s.code = exitCode(s.cmd.Wait()); close(s.done) }()
	}
	stop := context.AfterFunc(ctx, func() { s.kill() })
	defer stop()
	if _, err := s.uc.Write(req); err != nil {
		return nil, s.failed("send the request")
	}
	return s, nil
}

func (t Target) openFabric(ctx context.Context, getenv Env, req []byte) (*Stream, error) {
	bin := getenv(fabricEnv)
	if bin == "" {
		bin = "fabric"
	}
	ctx, cancel := context.WithTimeout(ctx, AckWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "dial", t.Fabric, fabricService)
	errs := &tail{}
	cmd.Stderr = errs
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) {
		return nil, &Error{Host: t.Label, Msg: fmt.Sprintf("%s is a fabric peer, but the fabric command is not installed (or set %s)", t.Label, fabricEnv)}
	}
	path := strings.TrimSpace(string(out))
	if err != nil || path == "" {
		why := lastLine(errs.String())
		if why == "" && err != nil {
			why = err.Error()
		}
		if why == "" {
			why = "it printed no socket"
		}
		return nil, &Error{Host: t.Label, Transport: true, Msg: fmt.Sprintf("fabric dial %s %s failed: %s", t.Fabric, fabricService, why)}
	}
	c, err := net.DialTimeout("unix", path, AckWait)
	if err != nil {
		return nil, &Error{Host: t.Label, Transport: true, Msg: fmt.Sprintf("fabric's socket for %s does not answer: %v", t.Fabric, err)}
	}
	s := &Stream{t: t, uc: c.(*net.UnixConn), done: make(chan struct{})}
	close(s.done)
	if _, err := s.uc.Write(req); err != nil {
		s.uc.Close()
		return nil, &Error{Host: t.Label, Transport: true, Msg: fmt.Sprintf("fabric's socket for %s: %v", t.Fabric, err)}
	}
	return s, nil
}

func (s *Stream) kill() {
	if s.mux != nil {
		s.mux.kill()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
}

// Close ends the interaction: our end is closed, which ends the remote
// command, and its carrier is waited for (ended if it does not go within
// a second).
func (s *Stream) Close() error {
	s.once.Do(func() {
		s.uc.Close()
		select {
		case <-s.done:
		case <-time.After(time.Second):
			s.kill()
			<-s.done
		}
	})
	return nil
}

// failed is the error of a stream that ended before remote-serve
// answered: what ssh's exit and standard error say.
func (s *Stream) failed(doing string) error {
	s.uc.Close()
	if s.cmd == nil && s.mux == nil {
		return &Error{Host: s.t.Label, Transport: true, Msg: fmt.Sprintf("%s closed the connection before answering (%s)", s.t.Label, doing)}
	}
	select {
	case <-s.done:
	case <-time.After(ConnectTimeout + AckWait):
		s.kill()
		<-s.done
	}
	code := s.code
	if code == 0 {
		return &Error{Host: s.t.Label, Transport: true, Msg: fmt.Sprintf("pty remote-serve on %s ended without answering: is the pty installed there too old to have it? (pty --version there)", s.t.Label)}
	}
	err := s.t.explain(code, s.errs.String(), "pty remote-serve")
	if e, ok := err.(*Error); ok && code != 255 && (code == 127 || notFound(s.errs.String())) {
		e.missing = true
	}
	return err
}

// readLine reads remote-serve's one answer line a byte at a time, so
// that nothing after it is taken from the session's stream.
func (s *Stream) readLine(deadline time.Time) ([]byte, error) {
	s.uc.SetReadDeadline(deadline)
	defer s.uc.SetReadDeadline(time.Time{})
	var line []byte
	b := make([]byte, 1)
	for len(line) < 64<<10 {
		n, err := s.uc.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return line, nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				s.kill()
				return nil, &Error{Host: s.t.Label, Transport: true, Msg: fmt.Sprintf("%s did not answer within %v: check that 'ssh %s' works", s.t.Label, ConnectTimeout+AckWait, s.t.SSH)}
			}
			return nil, s.failed("waiting for its answer")
		}
	}
	s.kill()
	return nil, &Error{Host: s.t.Label, Msg: fmt.Sprintf("%s answered with a line longer than 64 KiB: is it running pty remote-serve?", s.t.Label)}
}

// route is Dialer.Route; lasting says the route is to carry more than
// one short exchange (open).
func (t Target) route(ctx context.Context, getenv Env, ref string, lasting bool, early ...byte) (*client.Conn, *Stream, error) {
	req, _ := json.Marshal(map[string]string{"op": "route", "name": ref})
	s, line, err := t.serve(ctx, getenv, lasting, append(append(req, '\n'), early...), func(s *Stream) ([]byte, error) {
		return s.readLine(time.Now().Add(ConnectTimeout + AckWait))
	})
	if err != nil {
		return nil, nil, err
	}
	var resp struct {
		OK    bool    `json:"ok"`
		Error *string `json:"error"`
	}
	if json.Unmarshal(line, &resp) != nil || !resp.OK && resp.Error == nil {
		s.Close()
		return nil, nil, &Error{Host: t.Label, Msg: fmt.Sprintf("%s answered the route with %q, which is not pty remote-serve's answer", t.Label, clip(line))}
	}
	if !resp.OK {
		s.Close()
		return nil, nil, &RefusedError{Host: t.Label, Reason: *resp.Error}
	}
	return client.Relayed(s.uc), s, nil
}

// Row is one session of a host's list, as remote-serve sends it: the
// original's fields, then ours (an original's host leaves them out).
type Row struct {
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

	// skew is how far the host's clock is ahead of this one's, from the
	// reply's "now" (0 without one).
	skew time.Duration
}

// Changed is when the session last changed state (it ended, else it
// started), by this machine's clock: the host's time less the host's
// lead over this clock. It is zero when the host did not say (the
// original's remote-serve does not).
func (r Row) Changed() time.Time {
	ts := r.ExitedAt
	if ts == "" {
		ts = r.CreatedAt
	}
	t := layout.ParseTime(ts)
	if t.IsZero() {
		return t
	}
	return t.Add(-r.skew)
}

// Ending says how an ended session ended, as pty list says it ("exit 3",
// "killed (SIGHUP)", "exit ?").
func (r Row) Ending() string {
	return listing.Ending(&layout.Metadata{ExitCode: r.ExitCode, Signal: r.Signal})
}

// When is the row's state and age as pty list writes them: "up 5m",
// "exit 3, 2h ago", "started 1d ago"; "" when the host sent no times.
func (r Row) When(now time.Time) string {
	t := r.Changed()
	if t.IsZero() {
		return ""
	}
	age := listing.FormatAge(now.Sub(t))
	switch r.Status {
	case "running":
		return "up " + age
	case "exited":
		return r.Ending() + ", " + age + " ago"
	}
	return "started " + age + " ago"
}

// ActivityText is the row's activity markers as listings show them,
// "[bell] [notified]", or "".
func (r Row) ActivityText() string {
	return listing.ActivityText(&layout.Metadata{Activity: r.Activity})
}

// List asks t's remote-serve for its sessions.
func (t Target) List(ctx context.Context, getenv Env) ([]Row, error) {
	s, b, err := t.serve(ctx, getenv, false, []byte(`{"op":"list"}`+"\n"), func(s *Stream) ([]byte, error) {
		s.uc.SetReadDeadline(time.Now().Add(ConnectTimeout + AckWait))
		b, err := io.ReadAll(io.LimitReader(s.uc, maxList))
		if len(bytes.TrimSpace(b)) == 0 {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				s.kill()
				return nil, &Error{Host: t.Label, Transport: true, Msg: fmt.Sprintf("%s did not answer within %v: check that 'ssh %s' works", t.Label, ConnectTimeout+AckWait, t.SSH)}
			}
			return nil, s.failed("listing")
		}
		return b, nil
	})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var resp struct {
		Sessions []Row  `json:"sessions"`
		Error    string `json:"error"`
		Now      string `json:"now"`
	}
	got := time.Now()
	if err := json.Unmarshal(bytes.TrimSpace(b), &resp); err != nil {
		return nil, &Error{Host: t.Label, Msg: fmt.Sprintf("%s answered the list with %q, which is not pty remote-serve's answer", t.Label, clip(b))}
	}
	if resp.Error != "" {
		return nil, &Error{Host: t.Label, Msg: fmt.Sprintf("%s: %s", t.Label, resp.Error)}
	}
	if resp.Sessions == nil {
		resp.Sessions = []Row{}
	}
	// The host's clock as it answered, against this one's as the answer
	// came: the difference is its lead, give or take the answer's trip.
	if now := layout.ParseTime(resp.Now); !now.IsZero() {
		for i := range resp.Sessions {
			resp.Sessions[i].skew = now.Sub(got)
		}
	}
	return resp.Sessions, nil
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// FindRow is the row of rows that REF names by the rules a route
// resolves it by on the host (layout.MatchRef). n is how many the rule
// that decides names: 1 for the row found, 0 when no row matches, more
// when REF is ambiguous. A row without a display name has "".
func FindRow(rows []Row, ref string) (r Row, n int) {
	match := layout.MatchRef(ref, len(rows), func(i int) (string, string, bool) {
		return rows[i].Name, rows[i].DisplayName, rows[i].DisplayName != ""
	})
	if len(match) != 1 {
		return Row{}, len(match)
	}
	return rows[match[0]], 1
}
