package up

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// scrollbackOf is the record's scrollback, -1 when it has none.
func scrollbackOf(t *testing.T, root, id string) int {
	t.Helper()
	m, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scrollback == nil {
		return -1
	}
	return *m.Scrollback
}

// firstKept waits for id's `peek --plain --full` to end with the 200th
// line and returns its first line.
func firstKept(t *testing.T, root, id string) string {
	t.Helper()
	var first string
	testutil.WaitForState(t, 10*time.Second, id+" to print its 200 lines", func() (bool, string) {
		out := strings.TrimRight(testutil.Run(t, root, "peek", "--plain", "--full", id).Stdout, "\n")
		first, _, _ = strings.Cut(out, "\n")
		return strings.HasSuffix(out, "\n200"), strconv.Quote(out[max(len(out)-20, 0):])
	})
	return first
}

// scrollback = N in pty.toml gives the session N lines, over
// $PTY_SCROLLBACK, which gives the others theirs; up starts a dead one
// again with the file's value, or else the record's.
func TestUpScrollback(t *testing.T) {
	root := testutil.Root(t)
	dir := project(t, `
[sessions.short]
id = "short"
command = "seq 1 200; exec sleep 300"
scrollback = 50

[sessions.plain]
id = "plain"
command = "seq 1 200; exec sleep 300"
`)
	up := func(env ...string) {
		cmd := testutil.Command(t, root, "", "up")
		cmd.Dir, cmd.Env = dir, append(cmd.Env, env...)
		if r := testutil.RunCmd(t, cmd); r.Code != 0 {
			t.Fatalf("pty up: %+v", r)
		}
	}
	check := func(when string) {
		t.Helper()
		// up's sessions are 24 rows: 177 lines scroll off, of which
		// the last 50 (from 128) or 30 (from 148) are kept.
		for id, want := range map[string]int{"short": 50, "plain": 30} {
			first := strconv.Itoa(178 - want)
			if got, n := firstKept(t, root, id), scrollbackOf(t, root, id); got != first || n != want {
				t.Errorf("%s: %s's scrollback starts at %q (record: %d), want %s (%d)", when, id, got, n, first, want)
			}
		}
	}
	up("PTY_SCROLLBACK=30")
	check("up")
	testutil.MustRun(t, root, "kill", "short")
	testutil.MustRun(t, root, "kill", "plain")
	up()
	check("up again")
}

// A scrollback out of range, or not a number, is an error at its line,
// and up starts nothing.
func TestUpRejectsBadScrollback(t *testing.T) {
	root := testutil.Root(t)
	for body, want := range map[string]string{
		"[sessions.a]\ncommand = \"sleep 30\"\nscrollback = 1000001\n":  "pty.toml:3: sessions.a: scrollback 1000001 is out of range: give a number of lines from 0 to 1000000",
		"[sessions.a]\ncommand = \"sleep 30\"\nscrollback = \"lots\"\n": "pty.toml:3: sessions.a: scrollback must be a number of lines, not a string",
		"[sessions.a]\ncommand = \"sleep 30\"\nscrollback = -5\n":       "pty.toml:3: sessions.a: scrollback -5 is out of range",
	} {
		dir := project(t, body)
		r := in(t, root, dir, "up")
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and one line with %q", body, r.Code, r.Stderr, want)
		}
		if f := testutil.DirNames(t, root); len(f) != 0 {
			t.Fatalf("%q left files: %v", body, f)
		}
	}
}
