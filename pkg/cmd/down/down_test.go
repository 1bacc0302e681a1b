package down

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunStopsTheFilesSessions(t *testing.T) {
	root := testutil.Root(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pty.toml"), []byte("[sessions.web]\ncommand = \"sleep 100\"\nid = \"down-web\"\ndisplay_name = \"web\"\ntags = { strategy = \"permanent\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "up", dir)
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	if err := Run(Options{Args: []string{dir}}, io); err != nil || out.String() != "○ web (stopped)\nStopped 1 session.\n" {
		t.Fatalf("down: %v %q %q", err, out.String(), errb.String())
	}
	if _, err := layout.At(root).Load("down-web"); !errors.Is(err, layout.ErrNotFound) {
		t.Fatalf("after down, the record: %v", err)
	}
	if err := Run(Options{Args: []string{t.TempDir()}}, io); err == nil {
		t.Fatal("down in a directory without pty.toml: no error")
	}
}
