package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Actions are what a --write page may do besides typing: stop, restart
// and start sessions. pkg/cmd/web fills them with the code of pty kill,
// pty restart -y and pty run -d, so a page does what those commands do,
// with their checks and messages.
type Actions struct {
	// Kill stops session id and returns what pty kill prints.
	Kill func(ctx context.Context, id string) (string, error)
	// Restart kills session id if it runs and starts it again, and
	// returns what pty restart prints.
	Restart func(ctx context.Context, id string) (string, error)
	// Start starts a session in the background and returns its id.
	Start func(ctx context.Context, r StartRequest) (string, error)
}

// StartRequest is a new session, as the page's form describes it.
type StartRequest struct {
	Argv []string
	Name string // "": derived, as pty run derives it
	Cwd  string // absolute
}

// Limits on the actions.
const (
	// actionPath is where a page posts an action.
	actionPath = "/action"
	// TokenHeader carries the token with an action. A page of another
	// origin cannot send a header of its own without the browser asking
	// first (a CORS preflight, which this server never grants).
	TokenHeader = "X-Pty-Token"
	// MaxActionBody bounds an action's request body.
	MaxActionBody = 16 << 10
	// MaxCommandLine bounds the command line of a new session.
	MaxCommandLine = 4096
	// MaxActions bounds the actions running at once; more get 503.
	MaxActions = 4
)

// actionReq is an action as a page posts it, as JSON.
type actionReq struct {
	Op string `json:"op"` // "kill", "restart" or "start"
	ID string `json:"id"` // for kill and restart
	// Host, for kill and restart, is the host of --remotes the session
	// is on; "": this one.
	Host    string `json:"host,omitempty"`
	Command string `json:"command"`
	Name    string `json:"name"`
	Cwd     string `json:"cwd"`
}

// actionErr is an action's failure: its HTTP status and a sentence.
type actionErr struct {
	code int
	msg  string
}

func (e *actionErr) Error() string { return e.msg }

func badAction(format string, args ...any) error {
	return &actionErr{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// checkAction authorises an action: --write, the token in TokenHeader,
// a same-origin JSON request. A form of another site can post none of
// these: not JSON, not the header, not this Origin.
func (s *server) checkAction(r *http.Request) error {
	if !s.o.Write || s.o.Actions == nil {
		return &actionErr{http.StatusForbidden, "read-only: start pty web with --write to stop, restart or start sessions"}
	}
	want := []byte(s.o.Token)
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(TokenHeader)), want) != 1 {
		return &actionErr{http.StatusUnauthorized, "401 unauthorized: open the URL pty web printed (it carries the token)"}
	}
	if !sameOrigin(r) {
		return &actionErr{http.StatusForbidden, "403 forbidden: actions are taken from this server's own pages only"}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return &actionErr{http.StatusUnsupportedMediaType, "an action is a JSON body (Content-Type: application/json)"}
	}
	return nil
}

// serveAction runs one action and answers {"msg":...} or {"error":...}.
func (s *server) serveAction(w http.ResponseWriter, r *http.Request) {
	reply := func(code int, key, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]string{key: msg})
	}
	fail := func(err error) {
		var ae *actionErr
		if errors.As(err, &ae) {
			reply(ae.code, "error", ae.msg)
			return
		}
		reply(http.StatusConflict, "error", err.Error())
	}
	if err := s.checkAction(r); err != nil {
		fail(err)
		return
	}
	var req actionReq
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxActionBody))
	if err := dec.Decode(&req); err != nil {
		fail(badAction("the action is not a JSON object of at most %d KiB: %v", MaxActionBody>>10, err))
		return
	}
	s.mu.Lock()
	if s.actions >= MaxActions {
		s.mu.Unlock()
		fail(&actionErr{http.StatusServiceUnavailable, fmt.Sprintf("503 busy: %d actions are already running; try again when they finish", MaxActions)})
		return
	}
	s.actions++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.actions--
		s.mu.Unlock()
	}()
	msg, id, err := s.runAction(r.Context(), req)
	if err != nil {
		fail(err)
		return
	}
	s.reg.refresh() // the list shows the change without waiting for a tick
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]string{"msg": msg, "id": id})
}

func (s *server) runAction(ctx context.Context, req actionReq) (msg, id string, err error) {
	a := s.o.Actions
	switch req.Op {
	case "kill", "restart":
		if !validID(req.ID) {
			return "", "", badAction("%q is not a session id", req.ID)
		}
		if req.Host != "" {
			msg, err = s.remoteAction(ctx, req)
			return msg, req.ID, err
		}
		// The exact id, never a name or prefix that resolves elsewhere.
		if _, err := layout.At(s.o.Root).Load(req.ID); err != nil {
			return "", "", &actionErr{http.StatusNotFound, "no session " + req.ID + " in the registry"}
		}
		if req.Op == "kill" {
			msg, err = a.Kill(ctx, req.ID)
		} else {
			msg, err = a.Restart(ctx, req.ID)
		}
		return msg, req.ID, err
	case "start":
		if req.Host != "" {
			return s.remoteStart(ctx, req)
		}
		sr, err := startRequest(req)
		if err != nil {
			return "", "", err
		}
		id, err := a.Start(ctx, sr)
		if err != nil {
			return "", "", err
		}
		return fmt.Sprintf("Session %q started.", id), id, nil
	}
	return "", "", badAction("unknown action %q: kill, restart or start", req.Op)
}

// startRequest checks a new session's form. The command line is run by
// sh -c as typed at a shell; an empty one starts the user's shell.
func startRequest(req actionReq) (StartRequest, error) {
	sr, line, err := startLine(req)
	if err != nil {
		return sr, err
	}
	if line == "" {
		sh := os.Getenv("SHELL")
		if !filepath.IsAbs(sh) {
			sh = "/bin/sh"
		}
		sr.Argv = []string{sh}
	} else {
		sr.Argv = []string{"/bin/sh", "-c", line}
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = os.Getenv("HOME")
	}
	if len(cwd) > 4096 || !filepath.IsAbs(cwd) {
		return sr, badAction("the directory %q is not an absolute path (like /home/me/src)", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return sr, badAction("the directory %q does not exist", cwd)
	}
	sr.Cwd = cwd
	return sr, nil
}

// startLine checks a new session's command line and name, wherever it
// starts.
func startLine(req actionReq) (StartRequest, string, error) {
	var sr StartRequest
	line := strings.TrimSpace(req.Command)
	switch {
	case len(line) > MaxCommandLine:
		return sr, "", badAction("the command is longer than %d bytes", MaxCommandLine)
	case !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return r < ' ' && r != '\t' }):
		return sr, "", badAction("the command is one line of text, without control characters")
	}
	if req.Name != "" {
		if err := layout.ValidateDisplayName(req.Name); err != nil {
			return sr, "", badAction("name: %v", err)
		}
		sr.Name = req.Name
	}
	return sr, line, nil
}

// remoteStart starts a session on a host of --remotes: pty run -d -P
// there, with its checks and messages (the directory is the host's,
// checked there; empty, pty run's own there, the login's home). An empty
// command line starts the host's user's shell.
func (s *server) remoteStart(ctx context.Context, req actionReq) (msg, id string, err error) {
	t, err := s.remoteRunner(req.Host)
	if err != nil {
		return "", "", err
	}
	sr, line, err := startLine(req)
	if err != nil {
		return "", "", err
	}
	if req.Cwd != "" && (len(req.Cwd) > 4096 || !strings.HasPrefix(req.Cwd, "/")) {
		return "", "", badAction("the directory %q is not an absolute path (like /home/me/src)", req.Cwd)
	}
	if line == "" {
		line = `exec "${SHELL:-/bin/sh}"`
	}
	args := []string{"run", "-d", "-P"}
	if sr.Name != "" {
		args = append(args, "--name", sr.Name)
	}
	if req.Cwd != "" {
		args = append(args, "--cwd", req.Cwd)
	}
	args = append(args, "--", "/bin/sh", "-c", line)
	ctx, cancel := context.WithTimeout(ctx, RemoteActionWait)
	defer cancel()
	var out bytes.Buffer
	err = t.host().Run(ctx, args, &limitedWriter{w: &out, n: maxActionOutput})
	s.rem.ask(ctx, t.i)
	if err != nil {
		return "", "", err
	}
	id = strings.TrimSpace(out.String())
	if !validID(id) {
		return "", "", fmt.Errorf("pty run on %s answered %q, not a session id", listing.Printable(t.host().Label), listing.Printable(id))
	}
	return fmt.Sprintf("Session %q started on %s.", id, listing.Printable(t.host().Label)), id, nil
}

// remoteRunner is the host of --remotes named label, if the pages may
// run commands there.
func (s *server) remoteRunner(label string) (*remoteTarget, error) {
	var t *remoteTarget
	if s.rem != nil {
		t = s.rem.target(label)
	}
	if t == nil {
		return nil, &actionErr{http.StatusNotFound, "no host " + strconv.Quote(label) + " in remotes.toml"}
	}
	if t.host().Run == nil {
		return nil, &actionErr{http.StatusForbidden, "the pages cannot run commands on " + listing.Printable(t.host().Label)}
	}
	return t, nil
}

// remoteAction is kill or restart of a session of a host of --remotes:
// pty kill or pty restart -y run on the host, with its checks and
// messages there. The session must be one the host's list last had, by
// its exact id.
func (s *server) remoteAction(ctx context.Context, req actionReq) (string, error) {
	t, err := s.remoteRunner(req.Host)
	if err != nil {
		return "", err
	}
	h := t.host()
	if !t.has(req.ID) {
		return "", &actionErr{http.StatusNotFound, "no session " + req.ID + " in " + listing.Printable(h.Label) + "'s list"}
	}
	args := []string{"kill", "--", req.ID}
	if req.Op == "restart" {
		args = []string{"restart", "-y", "--", req.ID}
	}
	ctx, cancel := context.WithTimeout(ctx, RemoteActionWait)
	defer cancel()
	var out bytes.Buffer
	err = h.Run(ctx, args, &limitedWriter{w: &out, n: maxActionOutput})
	// The host is asked again before the answer, so that the page
	// reloaded after a restart finds the session running there.
	s.rem.ask(ctx, t.i)
	return strings.TrimSpace(out.String()), err
}

// Limits on an action run on another host.
const (
	// RemoteActionWait bounds one.
	RemoteActionWait = 60 * time.Second
	// maxActionOutput bounds what is kept of its output.
	maxActionOutput = 16 << 10
)

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	k := min(len(p), l.n)
	if k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
