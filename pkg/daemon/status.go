package daemon

import (
	"os"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

// StatusReply is the STATUS frame's JSON.
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

type StatusTerminal struct {
	Cols               int `json:"cols"`
	Rows               int `json:"rows"`
	CursorX            int `json:"cursorX"`
	CursorY            int `json:"cursorY"`
	ScrollbackUsed     int `json:"scrollbackUsed"`
	ScrollbackCapacity int `json:"scrollbackCapacity"`
}

type StatusProcess struct {
	Alive     bool       `json:"alive"`
	ExitCode  *int       `json:"exitCode"`
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

type StatusDaemon struct {
	Pid       int        `json:"pid"`
	Resources *Resources `json:"resources"`
}

// Resources is a process's memory and CPU use; nil where unavailable.
type Resources struct {
	RssKb      int64   `json:"rssKb"`
	CPUPercent float64 `json:"cpuPercent"`
}

type StatusClients struct {
	Total       int          `json:"total"`
	Attached    int          `json:"attached"`
	ReadOnly    int          `json:"readOnly"`
	Connections []StatusConn `json:"connections"`
}

type StatusConn struct {
	Role string `json:"role"`
	Rows int    `json:"rows,omitempty"`
	Cols int    `json:"cols,omitempty"`
}

type StatusModes struct {
	SGRMouse      bool `json:"sgrMouse"`
	CursorHidden  bool `json:"cursorHidden"`
	KittyKeyboard bool `json:"kittyKeyboard"`
	// KittyKeyboardFlags is a stack, as the original sends it (its stats
	// joins it); ours holds the flags in effect, or nothing.
	KittyKeyboardFlags []int `json:"kittyKeyboardFlags"`
	// Ours only (the original's clients ignore fields they do not know):
	// the modes that change what keys send, so that pty send types an
	// arrow as the program expects it.
	ApplicationCursor bool `json:"applicationCursor"`
	ApplicationKeypad bool `json:"applicationKeypad"`
}

func (d *Daemon) status() []byte {
	var s StatusReply
	s.Name = d.id
	if m, err := layout.At(d.root).Metadata(d.id); err == nil {
		s.Name = m.Name(d.id)
	}
	d.mu.Lock()
	rows, cols := d.screen.Size()
	y, x, _ := d.screen.Cursor()
	s.Terminal = StatusTerminal{Cols: cols, Rows: rows, CursorX: x, CursorY: y,
		// Used counts the viewport's rows too, as the original does, so it
		// reaches the capacity (rows + scrollback) when history is full.
		ScrollbackUsed: d.screen.ScrollbackLen() + rows, ScrollbackCapacity: rows + d.cfg.ScrollbackLines()}
	md := d.screen.Modes()
	s.Modes = StatusModes{SGRMouse: md.MouseSGR1006, CursorHidden: md.CursorHidden,
		KittyKeyboard: md.KittyKeyboardFlags != 0, KittyKeyboardFlags: []int{},
		ApplicationCursor: md.AppCursor, ApplicationKeypad: md.AppKeypad}
	if md.KittyKeyboardFlags != 0 {
		s.Modes.KittyKeyboardFlags = []int{md.KittyKeyboardFlags}
	}
	s.Clients.Connections = []StatusConn{}
	for c := range d.clients {
		switch c.role {
		case roleWritable:
			s.Clients.Attached++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "writable", Rows: c.rows, Cols: c.cols})
		case roleReadonly:
			s.Clients.ReadOnly++
			s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: "readonly"})
		}
	}
	s.Clients.Total = len(d.clients)
	exited, code := d.exited, d.exitCode
	d.mu.Unlock()
	s.Process.Pid = d.child.Pid
	s.Process.Alive = !exited
	if exited {
		s.Process.ExitCode = &code
	} else {
		s.Process.Resources = resourcesOf(d.child.Pid)
	}
	s.Daemon = StatusDaemon{Pid: os.Getpid(), Resources: resourcesOf(os.Getpid())}
	s.Uptime = float64(int64(time.Since(d.started).Seconds())) // whole seconds, as the original
	s.Created = d.created
	b, _ := s.appendJSON(nil)
	return b
}
