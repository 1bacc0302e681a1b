package attach

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// A daemon of the original's Rust port, as our clients meet it on the
// same registry: it may send frame 11 (its embedded mode's recovery),
// which our clients skip, frame 12 (an attach refused, with a reason),
// which they report as a refusal, and frame types nobody knows yet,
// which they skip. The peer below speaks those frames from a socket in
// place of a running session's; the clients are our real binaries.

var (
	recovery = proto.Frame{Type: proto.Recovery, Payload: []byte{0, 1, 2, 3}}
	unknown  = proto.Frame{Type: 77, Payload: bytes.Repeat([]byte{'u'}, 70<<10)}
	empty200 = proto.Frame{Type: 200}
)

// rustPeer serves session id's socket: with refuse, every connection's
// first frame is answered by frame 12 and a hang-up; otherwise STATUS,
// PEEK and ATTACH are answered with frames 11 and unknown ones around
// the ordinary ones.
func rustPeer(t *testing.T, root, id string, refuse bool) {
	t.Helper()
	st := proto.StatusReply{Name: id, Clients: proto.StatusClients{Connections: []proto.StatusConn{}},
		Modes: proto.StatusModes{KittyKeyboardFlags: []int{}}}
	reply, err := st.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	peer(t, root, id, func(c net.Conn, f proto.Frame) {
		if refuse {
			c.Write(frames(proto.Frame{Type: proto.AttachRefused, Payload: []byte("subscriber cap reached\x07\x1b]0;owned\x07")}))
			return
		}
		r := proto.NewReader(c)
		for {
			switch f.Type {
			case proto.Status:
				c.Write(frames(recovery, unknown, proto.Frame{Type: proto.Status, Payload: reply}))
			case proto.Peek:
				c.Write(frames(recovery, unknown, geometry, empty200, proto.Frame{Type: proto.Screen, Payload: []byte("rust-peer-screen")}, recovery))
			case proto.Attach:
				c.Write(frames(recovery, geometry, unknown, proto.Frame{Type: proto.Screen, Payload: []byte("rust-peer-screen")},
					empty200, proto.Frame{Type: proto.Data, Payload: []byte(" rust-peer-live")}, recovery,
					proto.Frame{Type: proto.Exit, Payload: proto.ExitCode(4)}))
				return
			}
			var err error
			if f, err = r.Next(); err != nil {
				return
			}
		}
	})
}

func TestClientsMeetRustPeer(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "rs", "--", "sleep", "120")
	testutil.MustRun(t, root, "run", "-d", "--id", "rf", "--", "sleep", "120")
	rustPeer(t, root, "rs", false)
	rustPeer(t, root, "rf", true)

	// Frames 11 and unknown ones are skipped.
	for _, args := range [][]string{{"peek", "rs"}, {"peek", "--plain", "rs"}} {
		if r := testutil.Run(t, root, args...); r.Code != 0 || !strings.Contains(r.Stdout, "rust-peer-screen") || r.Stderr != "" {
			t.Errorf("pty %v: %+v; want the peer's screen", args, r)
		}
	}
	if r := testutil.Run(t, root, "stats", "--json", "rs"); r.Code != 0 || !strings.Contains(r.Stdout, `"clients"`) {
		t.Errorf("pty stats --json: %+v; want the peer's STATUS", r)
	}
	u := onTerminal(t, root, 24, 80, nil, "attach", "rs")
	u.WaitOutput(t, "rust-peer-screen")
	u.WaitOutput(t, " rust-peer-live")
	u.WaitOutput(t, "[rs exited with code 4]")
	if code := u.Exit(t); code != 4 {
		t.Errorf("attach exit %d, want the peer's EXIT 4", code)
	}

	// Frame 12 is a refusal, its reason shown without its control
	// characters.
	for _, args := range [][]string{{"peek", "rf"}, {"peek", "--plain", "rf"}, {"stats", "rf"}, {"stats", "--json", "rf"}} {
		r := testutil.Run(t, root, args...)
		lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
		if r.Code != 1 || len(lines) != 1 || !strings.Contains(r.Stderr, "refused the connection: subscriber cap reached") || strings.ContainsAny(r.Stderr, "\x07\x1b") {
			t.Errorf("pty %v against a refusal: exit %d stdout %q stderr %q; want exit 1 and one line with the reason", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	u = onTerminal(t, root, 24, 80, nil, "attach", "rf")
	u.WaitOutput(t, "refused the connection: subscriber cap reached")
	if code := u.Exit(t); code != 1 {
		t.Errorf("attach against a refusal: exit %d, want 1", code)
	}
	if strings.Contains(u.Output(), "\x1b]0;") {
		t.Errorf("attach against a refusal printed the peer's escape sequence: %q", u.Output())
	}
}
