package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// StatusTimeout bounds a STATUS round trip; a daemon that cannot answer in
// that time is wedged, and saying so beats hanging a status bar.
const StatusTimeout = 2 * time.Second

// Status is the daemon's STATUS reply. Raw keeps the reply as sent, so
// --json passes on fields this version does not know.
type Status struct {
	Name     string `json:"name"`
	Terminal struct {
		Cols               int `json:"cols"`
		Rows               int `json:"rows"`
		CursorX            int `json:"cursorX"`
		CursorY            int `json:"cursorY"`
		ScrollbackUsed     int `json:"scrollbackUsed"`
		ScrollbackCapacity int `json:"scrollbackCapacity"`
	} `json:"terminal"`
	Process struct {
		Alive     bool       `json:"alive"`
		ExitCode  *int       `json:"exitCode"`
		Pid       int        `json:"pid"`
		Resources *Resources `json:"resources"`
	} `json:"process"`
	Daemon struct {
		Pid       int        `json:"pid"`
		Resources *Resources `json:"resources"`
	} `json:"daemon"`
	Clients struct {
		Total       int          `json:"total"`
		Attached    int          `json:"attached"`
		ReadOnly    int          `json:"readOnly"`
		Connections []Connection `json:"connections"`
	} `json:"clients"`
	Modes         map[string]any `json:"modes"`
	UptimeSeconds float64        `json:"uptimeSeconds"`
	CreatedAt     string         `json:"createdAt"`

	Raw json.RawMessage `json:"-"`
}

// Resources is a process's memory and CPU use.
type Resources struct {
	RssKB      int64   `json:"rssKb"`
	CPUPercent float64 `json:"cpuPercent"`
}

// Connection is one client of the daemon.
type Connection struct {
	Role string `json:"role"`
	Rows int    `json:"rows"`
	Cols int    `json:"cols"`
}

// QueryStatus asks a session's daemon for its STATUS on a fresh
// connection. Frames other than STATUS (a command connection also gets the
// session's live output) are skipped.
func QueryStatus(root, id string, timeout time.Duration) (*Status, error) {
	sock := layout.PathsFor(root, id).Sock()
	deadline := time.Now().Add(timeout)
	c, err := client.DialSocket(sock, timeout)
	if err != nil {
		return nil, fmt.Errorf("session %s: connect: %w", id, err)
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if err := proto.WriteFrame(c, proto.Status, nil); err != nil {
		return nil, fmt.Errorf("session %s: send STATUS: %w", id, err)
	}
	r := proto.NewReader(c)
	for {
		f, err := r.Next()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, fmt.Errorf("session %s: no STATUS reply within %v", id, timeout)
			}
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("session %s: daemon closed the connection without a STATUS reply", id)
			}
			return nil, fmt.Errorf("session %s: read STATUS: %w", id, err)
		}
		switch f.Type {
		case proto.Status:
			var st Status
			if err := json.Unmarshal(f.Payload, &st); err != nil {
				return nil, fmt.Errorf("session %s: STATUS reply is not valid JSON: %w", id, err)
			}
			st.Raw = f.Payload
			return &st, nil
		case proto.Exit:
			return nil, fmt.Errorf("session %s exited with code %d", id, proto.ParseExitCode(f.Payload))
		case proto.Refused:
			return nil, fmt.Errorf("session %s refused the connection: %s", id, f.Payload)
		}
	}
}
