package up

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunStartsTheFileOnce(t *testing.T) {
	root := testutil.Root(t)
	t.Setenv("PATH", testutil.BinDir(t)+":"+os.Getenv("PATH")) // spawn finds pty-daemon there
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pty.toml"), []byte("[sessions.web]\ncommand = \"sleep 100\"\nid = \"up-web\"\ndisplay_name = \"web\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}
	ctx := context.Background()

	if err := Run(ctx, Options{Args: []string{dir}}, io); err != nil || out.String() != "● web (started)\nStarted 1 session.\n" {
		t.Fatalf("up: %v %q %q", err, out.String(), errb.String())
	}
	s, err := layout.At(root).Load("up-web")
	if err != nil || s.Status != layout.Running || s.Meta.Tags["ptyfile.session"] != "web" {
		t.Fatalf("after up: %v, %s, tags %v", err, s.Status, s.Meta.Tags)
	}
	out.Reset()
	if err := Run(ctx, Options{Args: []string{dir}}, io); err != nil || out.String() != "● web (already running)\nAll sessions already running.\n" {
		t.Fatalf("up again: %v %q", err, out.String())
	}
	if err := Run(ctx, Options{Args: []string{dir, "nope"}}, io); err == nil {
		t.Fatal("up of a name the file does not declare: no error")
	}
}
