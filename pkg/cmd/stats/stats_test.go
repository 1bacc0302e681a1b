package stats

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunInProcess(t *testing.T) {
	root := testutil.Root(t)
	var out bytes.Buffer
	io := cli.IO{Out: &out, Err: &out, Root: root, Now: time.Now}
	if err := Run(Options{}, io); err != nil || out.String() != "No running sessions.\n" {
		t.Fatalf("empty registry: %v %q", err, out.String())
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "up", "--", "sleep", "100")
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--tag", "keep=true", "--", "sh", "-c", "exit 3")
	testutil.WaitFor(t, 10*time.Second, "gone to exit", func() bool {
		s, err := layout.At(root).Load("gone")
		return err == nil && s.Status == layout.Exited && s.Meta.ExitedAt != ""
	})
	out.Reset()
	if err := Run(Options{}, io); err != nil || !strings.Contains(out.String(), "(up)\n  size") || strings.Contains(out.String(), "gone") {
		t.Fatalf("running sessions: %v %q", err, out.String())
	}
	// The clock is the injected one: an hour later, it exited an hour ago.
	s, _ := layout.At(root).Load("gone")
	io.Now = func() time.Time { return layout.ParseTime(s.Meta.ExitedAt).Add(time.Hour) }
	out.Reset()
	if err := Run(Options{Args: []string{"gone"}}, io); err != nil || !strings.HasSuffix(out.String(), "(gone): exited with code 3, 1h ago\n") {
		t.Fatalf("exited session: %v %q", err, out.String())
	}
}

func TestRunTakesAtMostOneSession(t *testing.T) {
	var out bytes.Buffer
	err := Run(Options{Args: []string{"a", "b"}}, cli.IO{Out: &out, Err: &out, Root: t.TempDir(), Now: time.Now})
	if err == nil || cli.Message(err) != "pty: Unexpected argument: b (stats takes at most one session)" || out.Len() != 0 {
		t.Fatalf("two sessions: %v %q", err, out.String())
	}
}

func TestWithErrorLog(t *testing.T) {
	el := errorLog{Count: 2, Path: "/r/s.daemon.log"}
	for in, want := range map[string]string{
		`{"name":"s"}`:  `{"name":"s","errorLog":{"count":2,"path":"/r/s.daemon.log"}}`,
		"{ }\n":         `{ "errorLog":{"count":2,"path":"/r/s.daemon.log"}}`,
		`[1]`:           `[1]`, // not an object: as it came
		` {"a":{}}  `:   `{"a":{},"errorLog":{"count":2,"path":"/r/s.daemon.log"}}`,
		`{"unclosed":1`: `{"unclosed":1`,
	} {
		if got := string(withErrorLog([]byte(in), el)); got != want {
			t.Errorf("withErrorLog(%q) = %s, want %s", in, got, want)
		}
	}
}
