package peek

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// pty-peek prints a screen itself and leaves every other command line to
// pty-peek-full, so that printing a screen, which scripts and status bars
// run in loops, starts no slower than it must: a linked package's set-up
// runs at every start, whether the run uses it or not. The terminal
// emulator's (its parser's tables, its width tables) was most of the work
// of a peek, and flag parsing with fmt most of what was left above an
// empty Go program's start.
func TestPeekLinksLittle(t *testing.T) {
	unwanted := testutil.Unwanted(true)
	unwanted["os/exec."] = "starting programs"
	testutil.LinksNone(t, "pty-peek", unwanted, "printing a screen must not pay its set-up: keep it in pty-peek-full (pkg/cmd/peek)")
}

// Everything but printing a screen is pty-peek-full's: pty-peek runs it
// with the same arguments, and says what to do when it is missing.
func TestPeekHandsOverToFull(t *testing.T) {
	root := testutil.Root(t)
	r := run(t, root, nil, "peek", "--help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "--wait TEXT") {
		t.Fatalf("pty peek --help: code %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	r = run(t, root, nil, "peek", "-t", "1", "x")
	if r.Code != 1 || !strings.Contains(r.Stderr, "-t only limits --wait TEXT") {
		t.Fatalf("pty peek -t 1 x: code %d, stderr %q", r.Code, r.Stderr)
	}

	// A copy of pty-peek alone in a directory, with nothing on PATH.
	r = testutil.Lone(t, root, "pty-peek")("--help")
	if r.Code != 1 || !strings.Contains(r.Stderr, "pty-peek-full") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("pty-peek without pty-peek-full: code %d, stderr %q; want one line naming pty-peek-full", r.Code, r.Stderr)
	}
}
