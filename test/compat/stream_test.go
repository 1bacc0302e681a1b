package compat

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// TestAttachStreamOnUpstreamDaemon: our pty attach --attach-stream-fd-v1
// against the original's daemon (0.10.0, which predates the stream):
// either the stream is in the v1 order (GEOMETRY, SCREEN, then DATA, and
// one final frame), or pty attach refuses it with one line saying the
// daemon does not support it; never a stream out of order.
func TestAttachStreamOnUpstreamDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	const id = "upstream-stream"
	up.start(t, root, id, "--", "sh", "-c", "echo STREAM-UP; exec cat")
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, []string{"STREAM-UP"}, "the upstream session's output")

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	keys, typing, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := testutil.Command(t, root, "", "attach", "--attach-stream-fd-v1", "3", id)
	cmd.Dir = root
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdin = keys
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	keys.Close()
	fr := proto.NewReader(r)
	var got []proto.Frame
	typed := false
	for {
		f, err := fr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the stream: %v after %d frames", err, len(got))
		}
		got = append(got, f)
		if f.Type == proto.Screen && !typed {
			typed = true
			typing.Write([]byte("typed-through\n\x1c"))
		}
	}
	typing.Close()
	err = cmd.Wait()
	if out.Len() != 0 {
		t.Errorf("stdout %q, want nothing", out.String())
	}
	var names []string
	for _, f := range got {
		names = append(names, f.Type.String())
	}
	seq := strings.Join(names, " ")
	if err != nil {
		// Refused: one line saying so, and what came is a prefix of
		// the v1 order (GEOMETRY at most).
		lines := strings.Split(strings.TrimRight(errb.String(), "\n"), "\n")
		if len(lines) != 1 || !strings.Contains(errb.String(), "does not support the attach stream v1") || (seq != "" && seq != "GEOMETRY") {
			t.Errorf("against 0.10.0's daemon: %v, stderr %q, stream %s; want the v1 order or one line refusing it", err, errb.String(), seq)
		}
		t.Logf("0.10.0's daemon: refused (%s)", strings.TrimSpace(errb.String()))
		return
	}
	if len(got) < 3 || got[0].Type != proto.Geometry || got[1].Type != proto.Screen || got[len(got)-1].Type != proto.Detach {
		t.Errorf("stream %s, want GEOMETRY SCREEN ... DETACH", seq)
	}
	var data bytes.Buffer
	for _, f := range got {
		if f.Type == proto.Data {
			data.Write(f.Payload)
		}
	}
	if !strings.Contains(data.String(), "typed-through") {
		t.Errorf("DATA %q, want the echo of what was typed", data.String())
	}
	t.Logf("0.10.0's daemon: streamed %s", seq)
}
