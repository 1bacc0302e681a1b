package proto

import (
	"encoding/json"
	"strconv"

	"github.com/ptyorg/pty/internal/jsonlite"
)

// StatusReply is the JSON payload of a daemon's STATUS frame
// (docs/protocol.md, STATUS). The daemon writes it with AppendJSON;
// clients read it with ParseStatus.
type StatusReply struct {
	Name     string         `json:"name"`
	Terminal StatusTerminal `json:"terminal"`
	Process  StatusProcess  `json:"process"`
	Daemon   StatusDaemon   `json:"daemon"`
	Clients  StatusClients  `json:"clients"`
	Modes    StatusModes    `json:"modes"`
	Uptime   float64        `json:"uptimeSeconds"`
	Created  string         `json:"createdAt"`
}

// StatusTerminal is the session's screen: its size, the cursor, and how
// much of the scrollback is used.
type StatusTerminal struct {
	Cols               int `json:"cols"`
	Rows               int `json:"rows"`
	CursorX            int `json:"cursorX"`
	CursorY            int `json:"cursorY"`
	ScrollbackUsed     int `json:"scrollbackUsed"`
	ScrollbackCapacity int `json:"scrollbackCapacity"`
}

// StatusProcess is the session's child. ExitCode is nil while it runs.
type StatusProcess struct {
	Alive     bool       `json:"alive"`
	ExitCode  *int       `json:"exitCode"`
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

// StatusDaemon is the daemon's own process.
type StatusDaemon struct {
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

// Resources is a process's memory and CPU use; nil where the platform
// does not expose them.
type Resources struct {
	RssKb      int64   `json:"rssKb"`
	CPUPercent float64 `json:"cpuPercent"`
}

// StatusClients counts the daemon's connections; Total includes command
// connections, the one asking among them.
type StatusClients struct {
	Total       int          `json:"total"`
	Attached    int          `json:"attached"`
	ReadOnly    int          `json:"readOnly"`
	Connections []StatusConn `json:"connections"`
}

// Connection roles in StatusConn.
const (
	RoleWritable = "writable"
	RoleReadOnly = "readonly"
)

// StatusConn is one attached or read-only connection; Rows and Cols are
// the size a writable one asks for.
type StatusConn struct {
	Role string `json:"role"`
	Rows int    `json:"rows,omitempty"`
	Cols int    `json:"cols,omitempty"`
	// LastRequestSequence numbers a writable connection's last ATTACH or
	// RESIZE among all the session's, as the original does: the newest
	// request has the highest.
	LastRequestSequence int64 `json:"lastRequestSequence,omitempty"`
	// Constrains says whether the connection's size is the session's,
	// each way (a read-only one never is).
	Constrains *Constrains `json:"constrains,omitempty"`
}

// Constrains is StatusConn's constrains.
type Constrains struct {
	Rows bool `json:"rows"`
	Cols bool `json:"cols"`
}

// StatusModes are the terminal modes a client may need to know.
type StatusModes struct {
	SGRMouse      bool `json:"sgrMouse"`
	CursorHidden  bool `json:"cursorHidden"`
	KittyKeyboard bool `json:"kittyKeyboard"`
	// KittyKeyboardFlags is a stack, as the original sends it (its stats
	// joins it); ours holds the flags in effect, or nothing.
	KittyKeyboardFlags []int `json:"kittyKeyboardFlags"`
	// Ours only (the original's clients ignore fields they do not know):
	// the modes that change what keys send, so that pty send types an
	// arrow as the program expects it. A reply without them (the
	// original's daemon) reads as the normal modes.
	ApplicationCursor bool `json:"applicationCursor"`
	ApplicationKeypad bool `json:"applicationKeypad"`
}

// ParseStatus decodes a STATUS reply. Fields it does not know are ignored
// and missing ones (or null, as the original's daemon sends for a child
// that has exited) stay zero.
func ParseStatus(p []byte) (StatusReply, error) {
	var s StatusReply
	err := json.Unmarshal(p, &s)
	return s, err
}

// AppendJSON appends s as json.Marshal writes it, written by hand so the
// daemon does not link encoding/json's reflection (see internal/jsonlite);
// a test holds the two to the same bytes. It fails only for a float that
// JSON cannot hold (NaN, an infinity).
func (s *StatusReply) AppendJSON(b []byte) ([]byte, error) {
	t := &s.Terminal
	b = append(b, `{"name":`...)
	b = jsonlite.AppendString(b, s.Name)
	b = appendInt(b, `,"terminal":{"cols":`, t.Cols)
	b = appendInt(b, `,"rows":`, t.Rows)
	b = appendInt(b, `,"cursorX":`, t.CursorX)
	b = appendInt(b, `,"cursorY":`, t.CursorY)
	b = appendInt(b, `,"scrollbackUsed":`, t.ScrollbackUsed)
	b = appendInt(b, `,"scrollbackCapacity":`, t.ScrollbackCapacity)
	b = append(b, `},"process":{"alive":`...)
	b = strconv.AppendBool(b, s.Process.Alive)
	b = append(b, `,"exitCode":`...)
	if s.Process.ExitCode == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*s.Process.ExitCode), 10)
	}
	b = appendInt(b, `,"pid":`, s.Process.Pid)
	b, err := s.Process.Resources.appendJSON(append(b, `,"resources":`...))
	if err != nil {
		return nil, err
	}
	b = appendInt(b, `},"daemon":{"pid":`, s.Daemon.Pid)
	if b, err = s.Daemon.Resources.appendJSON(append(b, `,"resources":`...)); err != nil {
		return nil, err
	}
	c := &s.Clients
	b = appendInt(b, `},"clients":{"total":`, c.Total)
	b = appendInt(b, `,"attached":`, c.Attached)
	b = appendInt(b, `,"readOnly":`, c.ReadOnly)
	b, _ = jsonlite.AppendArray(append(b, `,"connections":`...), c.Connections, func(b []byte, conn StatusConn) ([]byte, error) {
		b = jsonlite.AppendString(append(b, `{"role":`...), conn.Role)
		if conn.Rows != 0 {
			b = appendInt(b, `,"rows":`, conn.Rows)
		}
		if conn.Cols != 0 {
			b = appendInt(b, `,"cols":`, conn.Cols)
		}
		if conn.LastRequestSequence != 0 {
			b = strconv.AppendInt(append(b, `,"lastRequestSequence":`...), conn.LastRequestSequence, 10)
		}
		if k := conn.Constrains; k != nil {
			b = strconv.AppendBool(append(b, `,"constrains":{"rows":`...), k.Rows)
			b = append(strconv.AppendBool(append(b, `,"cols":`...), k.Cols), '}')
		}
		return append(b, '}'), nil
	})
	md := &s.Modes
	b = append(b, `},"modes":{"sgrMouse":`...)
	b = strconv.AppendBool(b, md.SGRMouse)
	b = append(b, `,"cursorHidden":`...)
	b = strconv.AppendBool(b, md.CursorHidden)
	b = append(b, `,"kittyKeyboard":`...)
	b = strconv.AppendBool(b, md.KittyKeyboard)
	b, _ = jsonlite.AppendArray(append(b, `,"kittyKeyboardFlags":`...), md.KittyKeyboardFlags, func(b []byte, f int) ([]byte, error) {
		return strconv.AppendInt(b, int64(f), 10), nil
	})
	b = append(b, `,"applicationCursor":`...)
	b = strconv.AppendBool(b, md.ApplicationCursor)
	b = append(b, `,"applicationKeypad":`...)
	b = strconv.AppendBool(b, md.ApplicationKeypad)
	if b, err = jsonlite.AppendFloat(append(b, `},"uptimeSeconds":`...), s.Uptime, 64); err != nil {
		return nil, err
	}
	b = append(b, `,"createdAt":`...)
	b = jsonlite.AppendString(b, s.Created)
	return append(b, '}'), nil
}

func (r *Resources) appendJSON(b []byte) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	b = strconv.AppendInt(append(b, `{"rssKb":`...), r.RssKb, 10)
	b, err := jsonlite.AppendFloat(append(b, `,"cpuPercent":`...), r.CPUPercent, 64)
	return append(b, '}'), err
}

func appendInt(b []byte, prefix string, n int) []byte {
	return strconv.AppendInt(append(b, prefix...), int64(n), 10)
}
