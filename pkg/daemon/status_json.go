package daemon

import (
	"strconv"

	"github.com/ptyorg/pty/internal/jsonlite"
)

// appendJSON appends s as json.Marshal writes it, written by hand so the
// daemon does not link encoding/json's reflection (see internal/jsonlite);
// a test holds the two to the same bytes.
func (s *StatusReply) appendJSON(b []byte) ([]byte, error) {
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
