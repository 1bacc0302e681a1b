package daemon

import (
	"os"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

func (d *Daemon) status() []byte {
	var s proto.StatusReply
	s.Name = d.id
	if m, err := layout.At(d.root).Metadata(d.id); err == nil {
		s.Name = m.Name(d.id)
	}
	d.mu.Lock()
	rows, cols := d.screen.Size()
	y, x, _ := d.screen.Cursor()
	s.Terminal = proto.StatusTerminal{Cols: cols, Rows: rows, CursorX: x, CursorY: y,
		// Used counts the viewport's rows too, as the original does, so it
		// reaches the capacity (rows + scrollback) when history is full.
		ScrollbackUsed: d.screen.ScrollbackLen() + rows, ScrollbackCapacity: rows + d.cfg.ScrollbackLines()}
	md := d.screen.Modes()
	s.Modes = proto.StatusModes{SGRMouse: md.MouseSGR1006, CursorHidden: md.CursorHidden,
		KittyKeyboard: md.KittyKeyboardFlags != 0, KittyKeyboardFlags: []int{},
		ApplicationCursor: md.AppCursor, ApplicationKeypad: md.AppKeypad}
	if md.KittyKeyboardFlags != 0 {
		s.Modes.KittyKeyboardFlags = []int{md.KittyKeyboardFlags}
	}
	s.Clients.Connections = []proto.StatusConn{}
	for c := range d.clients {
		// A connection that has asked nothing yet is no client: a
		// liveness probe (layout's, run by every list) connects and
		// hangs up, and counted it made a session look watched.
		if c.spoke {
			s.Clients.Total++
		}
		switch c.role {
		case roleWritable:
			s.Clients.Attached++
			s.Clients.Connections = append(s.Clients.Connections, proto.StatusConn{Role: proto.RoleWritable, Rows: c.rows, Cols: c.cols,
				LastRequestSequence: c.seq, Constrains: &proto.Constrains{Rows: c.rows == rows, Cols: c.cols == cols}})
		case roleReadonly:
			s.Clients.ReadOnly++
			s.Clients.Connections = append(s.Clients.Connections, proto.StatusConn{Role: proto.RoleReadOnly, Constrains: &proto.Constrains{}})
		}
	}
	exited, code := d.exited, d.exitCode
	d.mu.Unlock()
	s.Process.Pid = d.childPid
	s.Process.Alive = !exited
	if exited {
		s.Process.ExitCode = &code
	} else {
		s.Process.Resources = resourcesOf(d.childPid)
	}
	s.Daemon = proto.StatusDaemon{Pid: os.Getpid(), Resources: resourcesOf(os.Getpid())}
	s.Uptime = float64(int64(time.Since(d.started).Seconds())) // whole seconds, as the original
	s.Created = d.created
	b, _ := s.AppendJSON(nil)
	return b
}
