package web

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ptyorg/pty/pkg/layout"
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
	Op      string `json:"op"` // "kill", "restart" or "start"
	ID      string `json:"id"` // for kill and restart
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
	var sr StartRequest
	line := strings.TrimSpace(req.Command)
	switch {
	case len(line) > MaxCommandLine:
		return sr, badAction("the command is longer than %d bytes", MaxCommandLine)
	case !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return r < ' ' && r != '\t' }):
		return sr, badAction("the command is one line of text, without control characters")
	case line == "":
		sh := os.Getenv("SHELL")
		if !filepath.IsAbs(sh) {
			sh = "/bin/sh"
		}
		sr.Argv = []string{sh}
	default:
		sr.Argv = []string{"/bin/sh", "-c", line}
	}
	if req.Name != "" {
		if err := layout.ValidateDisplayName(req.Name); err != nil {
			return sr, badAction("name: %v", err)
		}
		sr.Name = req.Name
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
