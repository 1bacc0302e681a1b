package compat

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// remoteServe starts our "pty remote-serve --stdio" against root and
// sends req, written as the original's client writes it (JSON.stringify
// and a newline) followed by first.
func remoteServe(t *testing.T, root, req string, first []byte) (io.WriteCloser, *bufio.Reader, *exec.Cmd) {
	t.Helper()
	cmd := testutil.Command(t, root, "remote-serve", "--stdio")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	// Past the deadline the server is killed, so no read below blocks.
	stop := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	t.Cleanup(func() { stop.Stop() })
	in.Write(append([]byte(req+"\n"), first...))
	return in, bufio.NewReader(out), cmd
}

// TestRemoteServeOriginalSessions serves sessions of both implementations
// through our remote-serve, speaking the original's request lines: list
// gives each session the fields the original's server would (its rows
// are built from the same records as its list --json), and a route
// reaches the original's daemon with the session protocol unchanged.
func TestRemoteServeOriginalSessions(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	up.start(t, root, "up1", catProgram...)
	oursMust(t, root, "run", "-d", "--id", "go1", "--name", "go one", "--tag", "team=core", "--", "sleep", "100")
	ready := []string{"READY plain"}
	waitScreen(t, func() testutil.Result { return up.run(t, root, "peek", "--plain", "up1") }, ready, "upstream peek")

	_, out, _ := remoteServe(t, root, `{"op":"list"}`, nil)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("list: %q %v", line, err)
	}
	var resp struct {
		Sessions []struct {
			Name        string            `json:"name"`
			Status      string            `json:"status"`
			Command     string            `json:"command"`
			Cwd         string            `json:"cwd"`
			Tags        map[string]string `json:"tags"`
			DisplayName *string           `json:"displayName"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("list: %q %v", line, err)
	}
	want := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout)
	if len(resp.Sessions) != len(want) || len(want) != 2 {
		t.Fatalf("remote list %q, upstream list %v", line, want)
	}
	for _, r := range resp.Sessions {
		w, ok := want[r.Name]
		if !ok || r.Status != w.Status || r.Command != w.Command || r.Cwd != w.Cwd ||
			len(r.Tags) != len(w.Tags) || r.Tags["team"] != w.Tags["team"] ||
			(r.DisplayName == nil) != (w.DisplayName == nil) || (w.DisplayName != nil && *r.DisplayName != *w.DisplayName) {
			t.Errorf("remote row %+v, upstream list --json %+v", r, w)
		}
	}

	// Type into the original's daemon through a route, then read its
	// screen through another.
	in, out, _ := remoteServe(t, root, `{"op":"route","name":"up1"}`, proto.AppendFrame(nil, proto.Attach, proto.Size(24, 80)))
	if l, _ := out.ReadString('\n'); l != `{"ok":true}`+"\n" {
		t.Fatalf("route ack: %q", l)
	}
	fr := proto.NewReader(out)
	for {
		f, err := fr.Next()
		if err != nil {
			t.Fatalf("attach through the route: %v", err)
		}
		if f.Type == proto.Screen {
			break
		}
	}
	proto.WriteFrame(in, proto.Data, []byte("through the hop\r"))
	waitScreen(t, func() testutil.Result { return up.run(t, root, "peek", "--plain", "up1") },
		[]string{"READY plain", "through the hop", "through the hop"}, "upstream peek after typing through the route")
	proto.WriteFrame(in, proto.Detach, nil)

	_, out, _ = remoteServe(t, root, `{"op":"route","name":"up1"}`, proto.AppendFrame(nil, proto.Peek, proto.PeekRequest(proto.PeekPlain)))
	if l, _ := out.ReadString('\n'); l != `{"ok":true}`+"\n" {
		t.Fatalf("route ack: %q", l)
	}
	fr = proto.NewReader(out)
	for {
		f, err := fr.Next()
		if err != nil {
			t.Fatalf("peek through the route: %v", err)
		}
		if f.Type == proto.Screen {
			if got := strings.Join(testutil.PlainLines(string(f.Payload)), "\n"); got != "READY plain\nthrough the hop\nthrough the hop" {
				t.Fatalf("the original's screen through the route: %q", got)
			}
			break
		}
	}
}
