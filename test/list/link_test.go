package list

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// pty-list prints the plain command lines itself and leaves every other
// to pty-list-full, so that a listing, which prompts, status bars and
// watch loops run over and over, starts no slower than it must: flag
// parsing, signal handling, fmt and the reflection-based JSON were most
// of what a list cost above an empty Go program's start, whether the run
// used them or not.
func TestListLinksLittle(t *testing.T) {
	unwanted := testutil.Unwanted(true)
	unwanted["os/exec."] = "starting programs"
	unwanted["github.com/ptyorg/pty/pkg/cmd/list."] = "the whole command (its flags, --summary)"
	testutil.LinksNone(t, "pty-list", unwanted, "a plain listing must not pay its set-up: keep it in pty-list-full (pkg/cmd/list)")
}

// full runs pty-list-full, the whole command, with args.
func full(t *testing.T, root string, args ...string) testutil.Result {
	t.Helper()
	return testutil.RunCmd(t, testutil.Command(t, root, "list-full", args...))
}

// What pty-list prints itself is what the whole command prints, byte for
// byte: the same sessions with the same statuses, in text and JSON.
func TestListPrintsWhatTheFullCommandPrints(t *testing.T) {
	root := testutil.Root(t)
	if r := testutil.MustRun(t, root, "list"); r.Stdout != "No sessions.\n" {
		t.Fatalf("pty list of an empty root: %q", r.Stdout)
	}
	threeKinds(t, root)
	testutil.MustRun(t, root, "run", "-d", "--id", "odd", "--name", "a <b> & \u00e9", "--tag", ":hidden=1", "--", "sh", "-c", "sleep 1000 # \"q\" \\")
	if err := os.WriteFile(filepath.Join(root, "broken.json"), []byte(`{"command": "x", "cw`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"--json"}, {"--tags"}, {"-json", "-tags"}} {
		// Ages are in seconds: a listing across a second's turn differs
		// from the one before it, never from both around it.
		before := full(t, root, args...)
		got := testutil.MustRun(t, root, append([]string{"list"}, args...)...)
		after := full(t, root, args...)
		if before.Code != 0 || (got.Stdout != before.Stdout && got.Stdout != after.Stdout) || got.Stderr != before.Stderr {
			t.Errorf("pty list %v printed\n%s(stderr %q)\npty-list-full printed\n%s(stderr %q, code %d)", args, got.Stdout, got.Stderr, before.Stdout, before.Stderr, before.Code)
		}
		if !strings.Contains(got.Stdout, "broken") || !strings.Contains(got.Stdout, "odd") {
			t.Errorf("pty list %v lacks a session:\n%s", args, got.Stdout)
		}
	}
}

// Everything but the plain listing is pty-list-full's: pty-list runs it
// with the same arguments, and says what to do when it is missing.
func TestListHandsOverToFull(t *testing.T) {
	root := testutil.Root(t)
	threeKinds(t, root)
	if r := testutil.Run(t, root, "list", "--help"); r.Code != 0 || !strings.Contains(r.Stdout, "--filter-tag") {
		t.Fatalf("pty list --help: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := testutil.Run(t, root, "list", "x"); r.Code != 1 || r.Stderr != "pty: list takes no arguments, got \"x\" (filter with --filter-tag or --status; see 'pty list --help')\n" {
		t.Fatalf("pty list x: code %d, stderr %q", r.Code, r.Stderr)
	}
	if r := testutil.Run(t, root, "list", "--json", "--json"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "[\n") {
		t.Fatalf("pty list --json --json: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := testutil.Run(t, root, "list", "--status", "exited"); r.Code != 0 || !strings.Contains(r.Stdout, "exit1") || strings.Contains(r.Stdout, "run1") {
		t.Fatalf("pty list --status exited: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	// Shell completion asks the full command for its flags, even with
	// no arguments.
	cmd := testutil.Command(t, root, "", "list")
	cmd.Env = append(cmd.Env, "PTY_DESCRIBE_FLAGS=1")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 || !strings.Contains(r.Stdout, "filter-tag\t") {
		t.Fatalf("PTY_DESCRIBE_FLAGS=1 pty list: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}

	// A copy of pty-list alone in a directory, with nothing on PATH.
	loneRun := testutil.Lone(t, root, "pty-list")
	if r := loneRun("--json"); r.Code != 0 || !strings.Contains(r.Stdout, `"name": "run1"`) {
		t.Fatalf("lone pty-list --json: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	r := loneRun("--summary")
	if r.Code != 1 || !strings.Contains(r.Stderr, "pty-list-full") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("pty-list without pty-list-full: code %d, stderr %q; want one line naming pty-list-full", r.Code, r.Stderr)
	}
}
