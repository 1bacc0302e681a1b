package list

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunListsFiltersAndSummarizes(t *testing.T) {
	root := testutil.Root(t)
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now, Env: []string{"HOME=/nonexistent"}}
	run := func(o Options) error { out.Reset(); return Run(o, io) }

	if err := run(Options{}); err != nil || out.String() != "No sessions.\n" {
		t.Fatalf("empty registry: %v %q", err, out.String())
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "web", "--tag", "role=web", "--", "sleep", "100")
	testutil.MustRun(t, root, "run", "-d", "--id", "db", "--tag", "role=db", "--", "sleep", "100")

	if err := run(Options{JSON: true, FilterTags: []string{"role=web"}}); err != nil {
		t.Fatal(err)
	}
	var got []struct{ Name, Status string }
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got) != 1 || got[0].Name != "web" || got[0].Status != "running" {
		t.Fatalf("--json --filter-tag role=web: %v %s", err, out.String())
	}
	if err := run(Options{Status: "exited"}); err != nil || out.String() != "No sessions match.\n" {
		t.Fatalf("--status exited: %v %q", err, out.String())
	}
	// Not a terminal: no colour, whatever NO_COLOR says.
	if err := run(Options{}); err != nil || !strings.Contains(out.String(), "web") || !strings.Contains(out.String(), "db") || strings.Contains(out.String(), "\x1b[") {
		t.Fatalf("text: %v %q", err, out.String())
	}
	if err := run(Options{Summary: true, JSON: true}); err != nil || !strings.Contains(out.String(), `"running": 2`) {
		t.Fatalf("--summary --json: %v %s", err, out.String())
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: []string{"web"}}, `pty: list takes no arguments, got "web" (filter with --filter-tag or --status; see 'pty list --help')`},
		{Options{FilterTags: []string{"role"}}, `pty: --filter-tag "role" has no '=': write it as KEY=VALUE`},
		{Options{Status: "dead"}, ""},
		{Options{OlderThan: "5 minutes"}, ""},
	} {
		if err := run(c.o); err == nil || c.want != "" && cli.Message(err) != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
