package state

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunInProcess(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "st", "--", "sleep", "100")
	var out bytes.Buffer
	io := cli.IO{Out: &out, Err: &out, Root: root}
	run := func(o Options) error { out.Reset(); return Run(o, io) }

	if err := run(Options{Args: []string{"set", "st", "phase", `"build"`}}); err != nil {
		t.Fatal(err)
	}
	// A value from stdin, inside the session (REF left out).
	r, w, _ := os.Pipe()
	w.WriteString(`{"port": 8080}`)
	w.Close()
	io.In, io.Session = r, "st"
	if err := run(Options{Args: []string{"set", "config"}}); err != nil {
		t.Fatal(err)
	}
	if err := run(Options{Args: []string{"get", "config"}}); err != nil || out.String() != "{\"port\":8080}\n" {
		t.Fatalf("get config: %v %q", err, out.String())
	}
	if err := run(Options{Session: "st", Args: []string{"keys"}}); err != nil || out.String() != "config\nphase\n" {
		t.Fatalf("keys: %v %q", err, out.String())
	}
	io.Session = ""
	if err := run(Options{Args: []string{"delete", "phase"}}); err == nil || !strings.Contains(err.Error(), "not inside a pty session, so give the session first") {
		t.Fatalf("outside a session: %v", err)
	}
	if err := run(Options{Args: []string{"frob"}}); err == nil || !strings.Contains(err.Error(), `unknown action "frob"`) {
		t.Fatalf("unknown action: %v", err)
	}
	if err := run(Options{Args: []string{"get", "st", "nope"}}); err == nil || !strings.Contains(err.Error(), `state key "nope" is not set`) {
		t.Fatalf("unset key: %v", err)
	}
}
