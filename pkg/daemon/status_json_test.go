package daemon

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

func TestStatusWritesTheBytesJSONMarshalWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	text := func() string {
		pieces := []string{"a", "\"", "\\", "<", "\x00", "\n", "é", "\u2028", "\xff", "😀"}
		s := ""
		for range r.IntN(4) {
			s += pieces[r.IntN(len(pieces))]
		}
		return s
	}
	res := func() *Resources {
		if r.IntN(3) == 0 {
			return nil
		}
		return &Resources{RssKb: r.Int64N(1 << 40), CPUPercent: float64(r.IntN(100000)) / 10}
	}
	for i := range 5000 {
		s := StatusReply{Name: text(), Created: text(), Uptime: float64(r.Int64N(1 << 50))}
		s.Terminal = StatusTerminal{r.IntN(500), r.IntN(500), r.IntN(500), r.IntN(500), r.IntN(10001), 10000}
		s.Process = StatusProcess{Alive: r.IntN(2) == 0, Pid: r.IntN(1 << 22), Resources: res()}
		if r.IntN(2) == 0 {
			code := r.IntN(512) - 256
			s.Process.ExitCode = &code
		}
		s.Daemon = StatusDaemon{Pid: r.IntN(1 << 22), Resources: res()}
		s.Clients = StatusClients{Total: r.IntN(9), Attached: r.IntN(9), ReadOnly: r.IntN(9)}
		if r.IntN(4) != 0 {
			s.Clients.Connections = []StatusConn{}
			for range r.IntN(3) {
				s.Clients.Connections = append(s.Clients.Connections, StatusConn{Role: text(), Rows: r.IntN(3), Cols: r.IntN(3)})
			}
		}
		s.Modes = StatusModes{SGRMouse: r.IntN(2) == 0, CursorHidden: r.IntN(2) == 0, KittyKeyboard: r.IntN(2) == 0,
			ApplicationCursor: r.IntN(2) == 0, ApplicationKeypad: r.IntN(2) == 0}
		if r.IntN(4) != 0 {
			s.Modes.KittyKeyboardFlags = []int{}
			for range r.IntN(3) {
				s.Modes.KittyKeyboardFlags = append(s.Modes.KittyKeyboardFlags, r.IntN(32))
			}
		}
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.appendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("status %d: wrote\n%s, %v\njson.Marshal wrote\n%s", i, got, err, want)
		}
	}
}
