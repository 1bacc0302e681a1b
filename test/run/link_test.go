package run

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// pty-run starts a detached session itself and leaves every command line
// that attaches to pty-run-attach, so that run -d, which scripts and
// agents start many of, pays no set-up of the attach client: a linked
// package's set-up and its share of the binary's page faults come with
// every start, whether the run uses it or not.
func TestRunLinksLittle(t *testing.T) {
	unwanted := testutil.Unwanted(false)
	unwanted["github.com/ptyorg/pty/pkg/cmd/attach."] = "attaching"
	unwanted["golang.org/x/term.MakeRaw"] = "raw mode"
	testutil.LinksNone(t, "pty-run", unwanted, "run -d must not pay its set-up: keep it in pty-run-attach (pkg/cmd/run/attached)")
}

// Every command line that attaches is pty-run-attach's: pty-run runs it
// with the same arguments, and says what to do when it is missing.
func TestRunHandsOverToAttach(t *testing.T) {
	root := testutil.Root(t)
	// Standard input is not a terminal: pty-run-attach's refusal.
	r := testutil.Run(t, root, "run", "--", "true")
	if r.Code != 1 || !strings.Contains(r.Stderr, "needs a terminal") || !strings.Contains(r.Stderr, "add -d") {
		t.Fatalf("pty run -- true without a terminal: code %d, stderr %q", r.Code, r.Stderr)
	}

	// A copy of pty-run alone in a directory, with nothing on PATH.
	loneRun := testutil.Lone(t, root, "pty-run")
	// What the flags say is answered by pty-run itself.
	if r := loneRun("--help"); r.Code != 0 || !strings.Contains(r.Stdout, "pty run [-d") {
		t.Fatalf("lone pty-run --help: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := loneRun("--rows", "x", "--", "true"); r.Code != 1 || !strings.Contains(r.Stderr, "--rows") || strings.Contains(r.Stderr, "pty-run-attach") {
		t.Fatalf("lone pty-run --rows x: code %d, stderr %q", r.Code, r.Stderr)
	}
	r = loneRun("--id", "lone", "--", "true")
	if r.Code != 1 || !strings.Contains(r.Stderr, "pty-run-attach") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("pty-run without pty-run-attach: code %d, stderr %q; want one line naming pty-run-attach", r.Code, r.Stderr)
	}
	if _, err := layout.At(root).Load("lone"); err == nil {
		t.Fatalf("pty-run without pty-run-attach left a session behind")
	}
}
