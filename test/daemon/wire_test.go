package daemon

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

// The order of frames on a raw connection, as the newest original
// defines it (docs/protocol.md, Synchronisation): every ATTACH and PEEK
// gets GEOMETRY, then one SCREEN, before any DATA or EXIT; a new request
// replaces the previous role's stream; a malformed ATTACH changes
// nothing.

// rawConn is a connection to a session's socket, read frame by frame.
type rawConn struct {
	t *testing.T
	c net.Conn
	r *proto.Reader
}

func dialRaw(t *testing.T, root, id string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", layout.At(root).Paths(id).Sock())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, r: proto.NewReader(c)}
}

func (rc *rawConn) send(frames ...proto.Frame) {
	rc.t.Helper()
	var b []byte
	for _, f := range frames {
		b = proto.AppendFrame(b, f.Type, f.Payload)
	}
	if _, err := rc.c.Write(b); err != nil {
		rc.t.Fatal(err)
	}
}

func (rc *rawConn) next() proto.Frame {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(15 * time.Second))
	f, err := rc.r.Next()
	if err != nil {
		rc.t.Fatalf("reading a frame: %v", err)
	}
	return f
}

// until reads frames until one satisfies stop, and returns them all.
func (rc *rawConn) until(stop func(proto.Frame) bool) []proto.Frame {
	rc.t.Helper()
	var fs []proto.Frame
	for {
		f := rc.next()
		fs = append(fs, f)
		if stop(f) {
			return fs
		}
	}
}

func names(fs []proto.Frame) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.Type.String())
	}
	return strings.Join(s, " ")
}

func attach(rows, cols int) proto.Frame {
	return proto.Frame{Type: proto.Attach, Payload: proto.Size(rows, cols)}
}

// attach8 is the Rust port's ATTACH or RESIZE: rows, cols, cell width and
// height, each u16.
func attach8(t proto.Type, rows, cols int) proto.Frame {
	p := binary.BigEndian.AppendUint16(proto.Size(rows, cols), 9)
	return proto.Frame{Type: t, Payload: binary.BigEndian.AppendUint16(p, 18)}
}

func peek(flags byte) proto.Frame {
	return proto.Frame{Type: proto.Peek, Payload: proto.PeekRequest(flags)}
}

var status = proto.Frame{Type: proto.Status}

// statusOf is the session's STATUS, on its own connection.
func statusOf(t *testing.T, root, id string) proto.StatusReply {
	t.Helper()
	rc := dialRaw(t, root, id)
	rc.send(status)
	fs := rc.until(func(f proto.Frame) bool { return f.Type == proto.Status })
	st, err := proto.ParseStatus(fs[len(fs)-1].Payload)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// attachForm reports whether a SCREEN is the ATTACH form (the exact
// screen), which always starts by resetting the pen and setting
// autowrap, rather than PEEK's text.
func attachForm(p []byte) bool {
	return bytes.HasPrefix(p, []byte("\x1b[0m")) && bytes.Contains(p[:min(len(p), 64)], []byte("\x1b[?7h"))
}

// printing starts a session that prints a numbered line every few
// milliseconds, and waits until it has more than 300 lines of
// scrollback, so that an ATTACH's baseline (with all the history) is
// rendered in slices by the connection's writer, not by the request.
func printing(t *testing.T, root, id string) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c",
		`i=0; while [ $i -lt 400 ]; do i=$((i+1)); echo "burst-$i"; done; while :; do i=$((i+1)); echo "line-$i"; sleep 0.005; done`)
	testutil.WaitFor(t, 15*time.Second, "300 lines of scrollback", func() bool {
		return statusOf(t, root, id).Terminal.ScrollbackUsed > 330
	})
}

// checkBaseline checks that fs, the frames after a request, start with
// GEOMETRY then one SCREEN, with nothing else before them.
func checkBaseline(t *testing.T, what string, fs []proto.Frame) {
	t.Helper()
	if len(fs) < 2 || fs[0].Type != proto.Geometry || fs[1].Type != proto.Screen {
		t.Fatalf("%s: frames %s, want GEOMETRY then SCREEN first", what, names(fs))
	}
}

// TestSyncOrderWhilePrinting: while the session prints, each kind of
// request on a fresh connection gets GEOMETRY then one SCREEN before any
// DATA, then the live DATA.
func TestSyncOrderWhilePrinting(t *testing.T) {
	root := testutil.Root(t)
	printing(t, root, "pr")
	for _, tc := range []struct {
		name string
		req  proto.Frame
		form bool // ATTACH's form of SCREEN
	}{
		{"ATTACH", attach(24, 80), true},
		{"8-byte ATTACH", attach8(proto.Attach, 24, 80), true},
		{"PEEK", peek(0), false},
		{"PEEK plain", peek(proto.PeekPlain), false},
		{"PEEK full", peek(proto.PeekFull), false},
		{"PEEK redraw full", peek(proto.PeekFull | proto.PeekRedraw), true},
	} {
		rc := dialRaw(t, root, "pr")
		rc.send(tc.req)
		fs := rc.until(func(f proto.Frame) bool { return f.Type == proto.Data })
		checkBaseline(t, tc.name, fs)
		if len(fs) != 3 {
			t.Errorf("%s: frames %s, want GEOMETRY SCREEN DATA", tc.name, names(fs))
		}
		if attachForm(fs[1].Payload) != tc.form {
			t.Errorf("%s: SCREEN %q..., want the ATTACH form %v", tc.name, fs[1].Payload[:min(40, len(fs[1].Payload))], tc.form)
		}
		rc.c.Close()
	}
}

// TestNewRequestReplacesUnfinishedSync: an ATTACH whose baseline (with a
// long history) is still to be rendered, then at once a PEEK on the same
// connection: the connection's stream restarts with the PEEK's GEOMETRY
// and SCREEN, and nothing of the ATTACH's role (its screen, or DATA
// queued for it) comes between the PEEK and its baseline. The other way
// round too, from PEEK to ATTACH, and ATTACH to ATTACH at another size.
func TestNewRequestReplacesUnfinishedSync(t *testing.T) {
	root := testutil.Root(t)
	printing(t, root, "re")
	for _, tc := range []struct {
		name        string
		first, then proto.Frame
		form        bool // the form of the last request's SCREEN
	}{
		{"ATTACH then PEEK", attach(24, 80), peek(proto.PeekPlain), false},
		{"PEEK full then ATTACH", peek(proto.PeekFull | proto.PeekRedraw), attach(24, 80), true},
		{"ATTACH then ATTACH", attach(24, 80), attach(20, 70), true},
	} {
		for round := 0; round < 5; round++ {
			rc := dialRaw(t, root, "re")
			rc.send(tc.first, tc.then) // in one write: the first is unfinished when the second comes
			// Read until the last request's SCREEN and some live output
			// after it.
			var fs []proto.Frame
			data := 0
			lastScreen := -1
			for data < 3 {
				f := rc.next()
				fs = append(fs, f)
				switch f.Type {
				case proto.Screen:
					lastScreen = len(fs) - 1
					data = 0
				case proto.Data:
					if lastScreen >= 0 {
						data++
					}
				}
			}
			what := fmt.Sprintf("%s (round %d): frames %s", tc.name, round, names(fs))
			checkBaseline(t, what, fs)
			if lastScreen < 1 || fs[lastScreen-1].Type != proto.Geometry {
				t.Fatalf("%s: the last SCREEN does not follow a GEOMETRY", what)
			}
			if attachForm(fs[lastScreen].Payload) != tc.form {
				t.Errorf("%s: the stream ends in the previous role's SCREEN form", what)
			}
			// Every SCREEN is the first request's (a sync finished
			// before the second came) or the second's; once the
			// second's has come, none of the first's follows.
			screens := 0
			for _, f := range fs {
				if f.Type == proto.Screen {
					screens++
				}
			}
			if screens > 2 {
				t.Errorf("%s: %d SCREENs, want at most the first request's and the second's", what, screens)
			}
			if tc.name == "ATTACH then ATTACH" {
				if r, c, _ := proto.ParseSize(fs[lastScreen-1].Payload); r != 20 || c != 70 {
					t.Errorf("%s: last GEOMETRY %dx%d, want 20x70", what, r, c)
				}
			}
			rc.c.Close()
		}
	}
}

// TestAttachAfterPeekRestoresRole: a PEEK makes a connection read-only
// (its input is dropped, its size does not count); a malformed ATTACH
// changes nothing (no new baseline, still read-only); a valid ATTACH,
// even the Rust port's 8-byte one, makes it writable again: it gets its
// baseline, its input reaches the program and its size is the
// session's. A RESIZE from a connection that has not attached is
// ignored, and the Rust port's 8-byte RESIZE is taken.
func TestAttachAfterPeekRestoresRole(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--rows", "30", "--cols", "100", "--id", "cat", "--", "sh", "-c", "echo cat-ready; exec cat")
	testutil.WaitFor(t, 15*time.Second, "the program to start", func() bool {
		st := statusOf(t, root, "cat")
		return st.Terminal.CursorY > 0
	})

	// RESIZE before any ATTACH: ignored.
	other := dialRaw(t, root, "cat")
	other.send(proto.Frame{Type: proto.Resize, Payload: proto.Size(10, 40)}, status)
	other.until(func(f proto.Frame) bool { return f.Type == proto.Status })
	if st := statusOf(t, root, "cat"); st.Terminal.Rows != 30 || st.Terminal.Cols != 100 {
		t.Fatalf("after a RESIZE from a connection that has not attached: %dx%d, want 30x100", st.Terminal.Rows, st.Terminal.Cols)
	}

	rc := dialRaw(t, root, "cat")
	rc.send(peek(proto.PeekPlain))
	checkBaseline(t, "PEEK", rc.until(func(f proto.Frame) bool { return f.Type == proto.Screen }))
	rc.send(proto.Frame{Type: proto.Data, Payload: []byte("ignored-one\n")})
	// A malformed ATTACH: 2 bytes, then a zero size.
	rc.send(proto.Frame{Type: proto.Attach, Payload: []byte{0, 20}}, attach(0, 70))
	rc.send(proto.Frame{Type: proto.Data, Payload: []byte("ignored-two\n")}, status)
	fs := rc.until(func(f proto.Frame) bool { return f.Type == proto.Status })
	if len(fs) != 1 {
		t.Errorf("after malformed ATTACHes: frames %s, want the STATUS reply alone (no new baseline)", names(fs))
	}
	st, _ := proto.ParseStatus(fs[len(fs)-1].Payload)
	if st.Clients.Attached != 0 || st.Clients.ReadOnly != 1 || st.Terminal.Rows != 30 {
		t.Errorf("after malformed ATTACHes: %+v, size %dx%d; want the connection still read-only, 30x100", st.Clients, st.Terminal.Rows, st.Terminal.Cols)
	}

	rc.send(attach8(proto.Attach, 20, 70))
	fs = rc.until(func(f proto.Frame) bool { return f.Type == proto.Screen })
	checkBaseline(t, "ATTACH after PEEK", fs)
	if r, c, _ := proto.ParseSize(fs[0].Payload); r != 20 || c != 70 {
		t.Errorf("ATTACH after PEEK: GEOMETRY %dx%d, want the connection's 20x70", r, c)
	}
	if !attachForm(fs[1].Payload) {
		t.Errorf("ATTACH after PEEK: SCREEN %q, want the ATTACH form", fs[1].Payload)
	}
	rc.send(proto.Frame{Type: proto.Data, Payload: []byte("typed-three\n")})
	var out bytes.Buffer
	for !strings.Contains(out.String(), "typed-three\r\ntyped-three") {
		if f := rc.next(); f.Type == proto.Data {
			out.Write(f.Payload)
		}
	}
	rc.send(attach8(proto.Resize, 22, 75))
	fs = rc.until(func(f proto.Frame) bool { return f.Type == proto.Geometry })
	if r, c, _ := proto.ParseSize(fs[len(fs)-1].Payload); r != 22 || c != 75 {
		t.Errorf("8-byte RESIZE: GEOMETRY %dx%d, want 22x75", r, c)
	}
	st = statusOf(t, root, "cat")
	if st.Clients.Attached != 1 || st.Terminal.Rows != 22 || st.Terminal.Cols != 75 {
		t.Errorf("after ATTACH and RESIZE: %+v, size %dx%d; want one writable connection, 22x75", st.Clients, st.Terminal.Rows, st.Terminal.Cols)
	}
	if cs := st.Clients.Connections; len(cs) != 1 || cs[0].Role != proto.RoleWritable || cs[0].Rows != 22 || cs[0].Cols != 75 ||
		cs[0].LastRequestSequence < 2 || cs[0].Constrains == nil || !cs[0].Constrains.Rows || !cs[0].Constrains.Cols {
		t.Errorf("connections %+v, want the writable one at 22x75, constraining both ways, its RESIZE numbered after its ATTACH", cs)
	}
	scr := testutil.MustRun(t, root, "peek", "--plain", "cat").Stdout
	if strings.Contains(scr, "ignored") || !strings.Contains(scr, "typed-three") {
		t.Errorf("the program's screen:\n%s\nwant typed-three and nothing typed while read-only", scr)
	}
}

// TestExitFollowsBaseline: a request to an ended session whose daemon
// still answers gets GEOMETRY, SCREEN, then EXIT with the code.
func TestExitFollowsBaseline(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "ex", "--", "sh", "-c", "echo last-words; sleep 0.3; exit 5")
	release := testutil.HoldGrace(t, root, "ex")
	reqs := []proto.Frame{attach(24, 80), peek(0)}
	var conns []*rawConn
	for _, req := range reqs {
		rc := dialRaw(t, root, "ex")
		rc.send(req)
		conns = append(conns, rc)
	}
	release()
	for i, rc := range conns {
		fs := rc.until(func(f proto.Frame) bool { return f.Type == proto.Exit })
		if names(fs) != "GEOMETRY SCREEN EXIT" || proto.ParseExitCode(fs[2].Payload) != 5 {
			t.Errorf("%v to an ended session: %s, want GEOMETRY SCREEN EXIT 5", reqs[i].Type, names(fs))
		}
		if !strings.Contains(string(fs[1].Payload), "last-words") {
			t.Errorf("%v: SCREEN %q, want the final screen", reqs[i].Type, fs[1].Payload)
		}
	}
}

// TestStatsConnections: pty stats --json lists each writable and read-only
// connection as the original does: a writable one's requested size, the
// number of its last ATTACH or RESIZE among the session's, and whether it
// constrains the session's rows and cols (the smallest of the writable
// ones' each way); a read-only one constrains neither.
func TestStatsConnections(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "st", "--", "sleep", "120")
	a := dialRaw(t, root, "st")
	a.send(attach(30, 100))
	a.until(func(f proto.Frame) bool { return f.Type == proto.Screen })
	b := dialRaw(t, root, "st")
	b.send(attach(20, 120))
	b.until(func(f proto.Frame) bool { return f.Type == proto.Screen })
	c := dialRaw(t, root, "st")
	c.send(peek(0))
	c.until(func(f proto.Frame) bool { return f.Type == proto.Screen })

	conns := func() (wa, wb, ro proto.StatusConn) {
		t.Helper()
		r := testutil.MustRun(t, root, "stats", "--json", "st")
		st, err := proto.ParseStatus([]byte(r.Stdout))
		if err != nil {
			t.Fatalf("stats --json: %v\n%s", err, r.Stdout)
		}
		for _, cn := range st.Clients.Connections {
			switch {
			case cn.Role == proto.RoleReadOnly:
				ro = cn
			case cn.Rows == 30 && cn.Cols == 100: // a's, which never changes
				wa = cn
			default:
				wb = cn
			}
		}
		if len(st.Clients.Connections) != 3 || wa.Role == "" || wb.Role == "" || ro.Role == "" {
			t.Fatalf("connections %+v, want the two writable ones and the read-only one", st.Clients.Connections)
		}
		return
	}
	k := func(cn proto.StatusConn) string {
		if cn.Constrains == nil {
			return "none"
		}
		return fmt.Sprintf("%v,%v", cn.Constrains.Rows, cn.Constrains.Cols)
	}
	wa, wb, ro := conns()
	if k(wa) != "false,true" || k(wb) != "true,false" || k(ro) != "false,false" || wb.LastRequestSequence <= wa.LastRequestSequence || ro.LastRequestSequence != 0 {
		t.Errorf("30x100 %+v %s, 20x120 %+v %s, read-only %+v %s; want the first constraining the cols, the second the rows and numbered after it, the reader nothing",
			wa, k(wa), wb, k(wb), ro, k(ro))
	}
	seqB := wb.LastRequestSequence
	b.send(proto.Frame{Type: proto.Resize, Payload: proto.Size(40, 90)})
	b.until(func(f proto.Frame) bool { return f.Type == proto.Geometry })
	wa, wb, _ = conns()
	if wb.Rows != 40 || wb.Cols != 90 || wb.LastRequestSequence <= seqB || k(wa) != "true,false" || k(wb) != "false,true" {
		t.Errorf("after a RESIZE to 40x90: %+v %s and %+v %s; want it numbered anew, constraining the cols now, the other the rows", wb, k(wb), wa, k(wa))
	}
}

// TestPeekDuringAttachRendering: an ATTACH whose baseline has a long
// history is rendered by the connection's writer after its GEOMETRY is
// sent; a PEEK that comes while it renders replaces it: after the PEEK's
// GEOMETRY the next SCREEN is the PEEK's, and no ATTACH screen follows
// it.
func TestPeekDuringAttachRendering(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "big", "--", "sh", "-c",
		`i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "long-history-line-$i with some text to render"; done; while :; do echo tick; sleep 0.01; done`)
	testutil.WaitFor(t, 30*time.Second, "the history", func() bool {
		return statusOf(t, root, "big").Terminal.ScrollbackUsed > 9000
	})
	for round := 0; round < 5; round++ {
		rc := dialRaw(t, root, "big")
		rc.send(attach(24, 80))
		if f := rc.next(); f.Type != proto.Geometry {
			t.Fatalf("round %d: first frame %v, want GEOMETRY", round, f.Type)
		}
		rc.send(peek(proto.PeekPlain))
		var fs []proto.Frame
		peekScreen := -1
		for data := 0; data < 3; {
			f := rc.next()
			fs = append(fs, f)
			switch {
			case f.Type == proto.Screen && !attachForm(f.Payload):
				if peekScreen < 0 {
					peekScreen = len(fs) - 1
				}
			case f.Type == proto.Screen && peekScreen >= 0:
				t.Fatalf("round %d: an ATTACH screen after the PEEK's: %s", round, names(fs))
			case f.Type == proto.Data && peekScreen >= 0:
				data++
			}
		}
		lastGeo := -1
		for i, f := range fs[:peekScreen] {
			if f.Type == proto.Geometry {
				lastGeo = i
			}
		}
		if lastGeo < 0 {
			t.Fatalf("round %d: no GEOMETRY before the PEEK's SCREEN: %s", round, names(fs))
		}
		for _, f := range fs[lastGeo+1 : peekScreen] {
			if f.Type == proto.Screen || f.Type == proto.Data {
				t.Errorf("round %d: %v between the PEEK's GEOMETRY and its SCREEN: GEOMETRY (ATTACH) %s", round, f.Type, names(fs))
				break
			}
		}
		rc.c.Close()
	}
}
