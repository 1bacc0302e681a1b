package peek

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// pty-peek prints a screen itself and leaves every other command line to
// pty-peek-full, so that printing a screen, which scripts and status bars
// run in loops, starts no faster than it must: a linked package's
// set-up runs at every start, whether the run uses it or not, and the
// terminal emulator's (its parser's tables, its width tables) was most
// of the work of a peek.
func TestPeekLinksLittle(t *testing.T) {
	unwanted := map[string]string{
		"github.com/ptyorg/pty/pkg/term.":   "the terminal emulator (reattach's screen tracking)",
		"github.com/charmbracelet/":         "the emulator's parser and width tables",
		"github.com/mattn/go-runewidth.":    "width tables",
		"github.com/ptyorg/pty/pkg/client.": "the attach client (net, the emulator)",
		"github.com/ptyorg/pty/pkg/remote.": "remote routes (ssh, toml)",
		"github.com/pelletier/go-toml":      "remotes.toml",
		"net.":                              "the network poller",
		"os/exec.":                          "starting programs",
	}
	for _, s := range testutil.Symbols(t, "pty-peek") {
		for pkg, why := range unwanted {
			if strings.HasPrefix(s, pkg) {
				t.Fatalf("pty-peek links %s (%s: %s); printing a screen must not pay its set-up: keep it in pty-peek-full (pkg/cmd/peek)", strings.TrimSuffix(pkg, "."), s, why)
			}
		}
	}
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
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(testutil.BinDir(t), "pty-peek"))
	if err != nil {
		t.Fatal(err)
	}
	lone := filepath.Join(dir, "pty-peek")
	if err := os.WriteFile(lone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := testutil.Command(t, root, "", "--help")
	cmd.Path, cmd.Args = lone, []string{lone, "--help"}
	cmd.Env = append(cmd.Env, "PATH="+dir)
	r = testutil.RunCmd(t, cmd)
	if r.Code != 1 || !strings.Contains(r.Stderr, "pty-peek-full") || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("pty-peek without pty-peek-full: code %d, stderr %q; want one line naming pty-peek-full", r.Code, r.Stderr)
	}
}
