package metadata

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// stdin is a pipe holding s.
func stdin(t *testing.T, s string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(s); w.Close() }()
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRunPatchesByExactID(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "m", "--no-display-name", "--tag", "temporary=1", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	io.In = stdin(t, `{"displayName":"Worker","tags":{"role":"worker","temporary":null}}`)
	if err := Run(Options{ID: "m", Args: []string{"patch"}}, io); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), `{"changed":true,"metadata":{`) || !strings.HasSuffix(out.String(), "}\n") {
		t.Errorf("stdout %q", out.String())
	}
	m, err := layout.At(root).Metadata("m")
	if err != nil || m.DisplayName == nil || *m.DisplayName != "Worker" || len(m.Tags) != 1 || m.Tags["role"] != "worker" {
		t.Fatalf("after the patch: %+v %v", m, err)
	}
	for _, c := range []struct {
		o     Options
		input string
		want  string
	}{
		{Options{ID: "Worker", Args: []string{"patch"}}, `{}`, `Session "Worker" not found. (metadata patch takes an exact id, not a display name)`},
		{Options{ID: "m", Args: []string{"patch"}}, `{"tags":{"x":"1"},"extra":1}`, ""},
		{Options{ID: "m", Args: []string{"get"}}, `{}`, `pty: unknown action "get": the only action is patch (pty metadata patch --id ID < patch.json)`},
		{Options{Args: []string{"patch"}}, `{}`, "pty: --id is required: pty metadata patch --id ID < patch.json"},
		{Options{ID: "m", Args: []string{"patch"}}, strings.Repeat(" ", maxPatch+1), "pty: the patch is over 1048576 bytes: it holds a name and tags, nothing larger"},
	} {
		io.In = stdin(t, c.input)
		err := Run(c.o, io)
		if err == nil || c.want != "" && cli.Message(err) != c.want {
			t.Errorf("%+v with %.40q: %v, want %q", c.o, c.input, err, c.want)
		}
	}
	if m2, _ := layout.At(root).Metadata("m"); len(m2.Tags) != 1 {
		t.Errorf("a refused patch changed the tags: %v", m2.Tags)
	}
}
