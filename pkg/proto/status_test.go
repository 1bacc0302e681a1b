package proto

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The STATUS reply docs/protocol.md shows is what ours writes for the
// values it holds, byte for byte once the document's layout is taken out,
// and what ParseStatus reads from it.
func TestStatusMatchesTheProtocolDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sect, _ := strings.Cut(string(doc), "\n## STATUS\n")
	_, block, _ := strings.Cut(sect, "```json\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/protocol.md has no JSON block under ## STATUS")
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(block)); err != nil {
		t.Fatalf("the STATUS example of docs/protocol.md: %v", err)
	}
	s := StatusReply{
		Name:     "display name or id",
		Terminal: StatusTerminal{Cols: 80, Rows: 24, CursorX: 0, CursorY: 3, ScrollbackUsed: 120, ScrollbackCapacity: 10024},
		Process:  StatusProcess{Alive: true, Pid: 1234, Resources: &Resources{RssKb: 3120, CPUPercent: 0.4}},
		Daemon:   StatusDaemon{Pid: 1230, Resources: &Resources{RssKb: 9000, CPUPercent: 0.1}},
		Clients: StatusClients{Total: 2, Attached: 1, ReadOnly: 1,
			Connections: []StatusConn{{Role: RoleWritable, Rows: 24, Cols: 80, LastRequestSequence: 1, Constrains: &Constrains{Rows: true, Cols: true}},
				{Role: RoleReadOnly, Constrains: &Constrains{}}}},
		Modes:   StatusModes{KittyKeyboardFlags: []int{}},
		Uptime:  12,
		Created: "2026-01-01T00:00:00.000Z",
	}
	got, err := s.AppendJSON(nil)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("wrote\n%s, %v\nthe document shows\n%s", got, err, want.Bytes())
	}
	back, err := ParseStatus(want.Bytes())
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Errorf("read the document's reply as\n%+v, %v\nwant\n%+v", back, err, s)
	}
}

// The original's daemon sends null for a pid, an uptime and a creation
// time it does not have, connection fields of its own, and no
// application modes: a client of ours reads such a reply, the normal
// modes in it. (The shape is its server's STATUS reply in
// compoundingtech/pty, src/server.ts.)
func TestStatusFromTheOriginalsDaemon(t *testing.T) {
	const reply = `{"name":"web","terminal":{"cols":120,"rows":40,"cursorX":2,"cursorY":39,"scrollbackUsed":1040,"scrollbackCapacity":10040},` +
		`"process":{"alive":false,"exitCode":1,"pid":null,"resources":null},"daemon":{"pid":4242,"resources":{"rssKb":51200,"cpuPercent":1.5}},` +
		`"clients":{"total":1,"attached":1,"readOnly":0,"connections":[{"role":"writable","rows":40,"cols":120,"lastRequestSequence":3,"constrains":{"rows":true,"cols":true}}]},` +
		`"modes":{"sgrMouse":true,"cursorHidden":false,"kittyKeyboard":true,"kittyKeyboardFlags":[1,3]},"uptimeSeconds":null,"createdAt":null}`
	s, err := ParseStatus([]byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "web" || s.Terminal.Rows != 40 || s.Process.Alive || s.Process.ExitCode == nil || *s.Process.ExitCode != 1 || s.Process.Pid != 0 ||
		s.Daemon.Resources == nil || s.Daemon.Resources.RssKb != 51200 || len(s.Clients.Connections) != 1 || s.Clients.Connections[0].Cols != 120 ||
		!s.Modes.SGRMouse || !reflect.DeepEqual(s.Modes.KittyKeyboardFlags, []int{1, 3}) || s.Modes.ApplicationCursor || s.Uptime != 0 || s.Created != "" {
		t.Errorf("read %+v", s)
	}
	if _, err := ParseStatus([]byte(`{"name":`)); err == nil {
		t.Error("a cut reply reads without an error")
	}
}

// checkStatusRoundTrip: a reply ParseStatus reads is written by AppendJSON
// as json.Marshal writes it, and reads back the same.
func checkStatusRoundTrip(t *testing.T, p []byte) {
	s, err := ParseStatus(p)
	if err != nil {
		return
	}
	b, err := s.AppendJSON(nil)
	if err != nil {
		t.Fatalf("%q read as %+v, which does not write: %v", p, s, err)
	}
	if want, _ := json.Marshal(s); !bytes.Equal(b, want) {
		t.Fatalf("%q: wrote\n%s\njson.Marshal writes\n%s", p, b, want)
	}
	back, err := ParseStatus(b)
	if err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("%q read as %+v, written as %s, read back as %+v, %v", p, s, b, back, err)
	}
}

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
		if got, err := s.AppendJSON(nil); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("status %d: wrote\n%s, %v\njson.Marshal wrote\n%s", i, got, err, want)
		}
		checkStatusRoundTrip(t, want)
	}
}
