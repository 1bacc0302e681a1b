package evidence

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

func run(t *testing.T, root string, o Options) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Run(o, cli.IO{Out: &out, Err: &out, Root: root, Now: time.Now})
	return out.String(), err
}

func TestRunOutcomes(t *testing.T) {
	root := testutil.Root(t)
	code := 2
	testutil.WriteRecord(t, root, "ex", &layout.Metadata{Command: "/bin/true", DisplayCommand: "true", Cwd: "/", CreatedAt: layout.Now(),
		Generation: "g1", ExitCode: &code, ExitedAt: layout.Now(), LastLines: []string{"a", `"b"`}})
	if err := os.WriteFile(layout.At(root).Paths("empty").Meta(), []byte(`{"command":"/bin/true","args":[],"displayCommand":"true","cwd":"/","createdAt":"2026-01-01T00:00:00.000Z","generation":"g3","exitCode":0,"exitedAt":"2026-01-01T00:00:01.000Z","lastLines":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.WriteRecord(t, root, "gone", &layout.Metadata{Command: "/bin/true", DisplayCommand: "true", Cwd: "/", CreatedAt: layout.Now(), Generation: "g2"})
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{ID: "ex", Args: []string{"snapshot"}}, `{"_tag":"snapshot","snapshot":{"name":"ex","generation":"g1","status":"exited","exitCode":2,"stream":"combined","tail":{"_tag":"present","lastLines":["a","\"b\""]}}}`},
		{Options{ID: "gone", Args: []string{"snapshot"}}, `{"_tag":"snapshot","snapshot":{"name":"gone","generation":"g2","status":"vanished","exitCode":null,"stream":"combined","tail":{"_tag":"unavailable"}}}`},
		{Options{ID: "empty", Args: []string{"snapshot"}}, `{"_tag":"snapshot","snapshot":{"name":"empty","generation":"g3","status":"exited","exitCode":0,"stream":"combined","tail":{"_tag":"present","lastLines":[]}}}`},
		{Options{ID: "none", Args: []string{"snapshot"}}, `{"_tag":"unavailable","reason":"missing"}`},
		{Options{ID: "ex", ExpectedGeneration: "g0", Args: []string{"remove"}}, `{"_tag":"generation-mismatch"}`},
		{Options{ID: "ex", ExpectedGeneration: "g1", Args: []string{"remove"}}, `{"_tag":"removed"}`},
		{Options{ID: "ex", ExpectedGeneration: "g1", Args: []string{"remove"}}, `{"_tag":"missing"}`},
	} {
		got, err := run(t, root, tc.o)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%+v: %q %v, want %s", tc.o, got, err, tc.want)
		}
	}
	if _, err := os.Stat(layout.At(root).Paths("gone").Meta()); err != nil {
		t.Errorf("another session's record went: %v", err)
	}
}

func TestRunArgumentErrors(t *testing.T) {
	root := testutil.Root(t)
	for _, o := range []Options{
		{},
		{ID: "x", Args: []string{"drop"}},
		{Args: []string{"snapshot"}},
		{ID: "x", Args: []string{"snapshot", "y"}},
		{ID: "x", ExpectedGeneration: "g", Args: []string{"snapshot"}},
		{ID: "x", Args: []string{"remove"}},
		{ID: "a/b", Args: []string{"snapshot"}},
	} {
		out, err := run(t, root, o)
		if err == nil || out != "" || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %q %v, want one line of error and no output", o, out, err)
		}
	}
}
