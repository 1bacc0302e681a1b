package run

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// A script gets the id it needs from pty run -d: -P prints it alone, so
// that id=$(pty run -d -P -- cmd) works, and --json an object with the
// name, the daemon's pid, the generation and the socket.
func TestRunDetachedPrintsIDForScripts(t *testing.T) {
	root := testutil.Root(t)
	r := testutil.MustRun(t, root, "run", "-d", "-P", "--", "sleep", "60")
	id := strings.TrimSuffix(r.Stdout, "\n")
	if layout.ValidateID(id) != nil || strings.Contains(id, "\n") || r.Stderr != "" {
		t.Fatalf("run -d -P printed %q (stderr %q), want the id alone", r.Stdout, r.Stderr)
	}
	if s, err := layout.At(root).Load(id); err != nil || s.Status != layout.Running {
		t.Fatalf("the id -P printed is not a running session: %v %v", s.Status, err)
	}
	if r := testutil.MustRun(t, root, "run", "-d", "-a", "--id", id, "--print-id", "--", "sleep", "60"); r.Stdout != id+"\n" {
		t.Errorf("run -d -a -P of a running session printed %q, want %q", r.Stdout, id+"\n")
	}

	r = testutil.MustRun(t, root, "run", "-d", "--json", "--id", "js", "--name", "API server", "--", "sleep", "60")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("run -d --json printed %q: %v", r.Stdout, err)
	}
	s, err := layout.At(root).Load("js")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "js", "name": "API server", "pid": float64(s.Pid),
		"generation": s.Meta.Generation, "socket": layout.At(root).Paths("js").Sock()}
	if len(got) != len(want) || s.Pid <= 0 || s.Meta.Generation == "" {
		t.Errorf("run -d --json = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("run -d --json: %s = %v, want %v", k, got[k], v)
		}
	}

	for _, args := range [][]string{{"run", "-P", "--", "true"}, {"run", "-d", "-P", "--json", "--", "true"}} {
		if r := testutil.Run(t, root, args...); r.Code == 0 || strings.Count(r.Stderr, "\n") != 1 || r.Stdout != "" {
			t.Errorf("%v: %+v, want one line on stderr and a failure", args, r)
		}
	}
}
