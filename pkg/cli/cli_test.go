package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestFlagErrorsReadAsTyped(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--force"}, "unknown flag --force"},
		{[]string{"-z"}, "unknown flag -z"},
		{[]string{"--nme"}, "unknown flag --nme; did you mean --name?"},
		{[]string{"--evry=1s"}, "unknown flag --evry; did you mean --every?"},
		{[]string{"--ro"}, "unknown flag --ro; did you mean --rows?"},
		{[]string{"--zzzz"}, "unknown flag --zzzz"},
		{[]string{"--rows", "abc"}, `--rows: "abc" is not a whole number`},
		{[]string{"--rows", "99999999999999999999"}, `--rows: "99999999999999999999" is out of range`},
		{[]string{"--name"}, "--name needs a value"},
		{[]string{"-d=maybe"}, `-d: "maybe" is not true or false`},
		{[]string{"--every", "soon"}, `--every: "soon" is not a duration (write it like 30s, 5m or 2h)`},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("rows", 0, "")
		fs.String("name", "", "")
		fs.Bool("d", false, "")
		fs.Duration("every", time.Second, "")
		err := fs.Parse(c.args)
		if err == nil {
			t.Fatalf("%v: no error", c.args)
		}
		if got := cleanFlagErr(fs, err).Error(); got != c.want {
			t.Errorf("%v: %q, want %q (from %q)", c.args, got, c.want, err)
		}
	}
}

// newTestCommand has a flag bound to a variable and a flag with an alias.
func newTestCommand() (*Command, *int, *bool) {
	c := NewCommand("t", "pty t", "test")
	hist := c.Flags.Int("history", -1, "lines of history")
	c.Env("history", "PTY_TEST_HISTORY")
	follow := c.Flags.Bool("follow", false, "follow")
	c.Alias("f", "follow")
	return c, hist, follow
}

func TestEnvBindsOnlyNamedVariable(t *testing.T) {
	t.Setenv("PTY_TEST_HISTORY", "12")
	t.Setenv("PTY_HISTORY", "99") // not bound: a prefix does not bind
	t.Setenv("PTY_FOLLOW", "true")
	c, hist, follow := newTestCommand()
	if _, err := c.ParseArgs(nil); err != nil {
		t.Fatal(err)
	}
	if *hist != 12 || *follow {
		t.Fatalf("history %d follow %v, want 12 false", *hist, *follow)
	}
	if !c.Set("history") {
		t.Fatal("a flag set by its variable is not reported as set")
	}

	c, hist, _ = newTestCommand()
	if _, err := c.ParseArgs([]string{"--history", "3"}); err != nil || *hist != 3 {
		t.Fatalf("command line over variable: %d %v", *hist, err)
	}

	t.Setenv("PTY_TEST_HISTORY", "lots")
	c, _, _ = newTestCommand()
	_, err := c.ParseArgs(nil)
	if err == nil || c.flagError(err).Error() != `PTY_TEST_HISTORY: "lots" is not a whole number` {
		t.Fatalf("bad variable: %v", err)
	}
	c, _, _ = newTestCommand()
	if _, err := c.ParseArgs([]string{"--history=4"}); err != nil {
		t.Fatalf("a bad variable under a flag that overrides it: %v", err)
	}
}

func TestAliasSharesValueAndHelpLine(t *testing.T) {
	c, _, follow := newTestCommand()
	pos, err := c.ParseArgs([]string{"ID", "-f"})
	if err != nil || !*follow || len(pos) != 1 || !c.Set("follow") || !c.Set("f") {
		t.Fatalf("pos %v follow %v err %v", pos, *follow, err)
	}
	var b strings.Builder
	c.PrintHelp(&b)
	h := b.String()
	if !strings.Contains(h, "  -f, --follow ") || strings.Contains(h, "\n  -f  ") {
		t.Errorf("help does not show -f with --follow once:\n%s", h)
	}
	if !strings.Contains(h, "(env PTY_TEST_HISTORY)") || !strings.Contains(h, "(env PTY_ROOT)") {
		t.Errorf("help does not name the bound variables:\n%s", h)
	}
}

func TestMessageFormIsTheErrors(t *testing.T) {
	ref := &layout.RefError{Ref: "web"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("no session given"), "pty: no session given"},
		// Only an error that says so is a sentence, whatever its text.
		{errors.New(`Session "web" is a plain error`), `pty: Session "web" is a plain error`},
		{errors.New("pty-ish words first"), "pty: pty-ish words first"},
		{Sentencef("Session %q is not running.", "web"), `Session "web" is not running.`},
		{ref, `Session "web" not found.`},
		{rootdir.Check("/dev/null"), "pty root /dev/null is not a directory: set PTY_ROOT to a directory (pty creates it when missing)"},
		// A wrapper's own text comes first: it is not a sentence.
		{fmt.Errorf("restart: %w", ref), `pty: restart: Session "web" not found.`},
	} {
		if got := Message(c.err); got != c.want {
			t.Errorf("Message(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestRootFlagIsNotExported(t *testing.T) {
	t.Setenv("PTY_ROOT", "/tmp/env-root")
	t.Setenv("PTY_SESSION_DIR", "/tmp/legacy")
	c, _, _ := newTestCommand()
	if _, err := c.ParseArgs([]string{"--root", "/tmp/flag-root"}); err != nil {
		t.Fatal(err)
	}
	dir, warnings, err := c.Root(os.Getenv)
	if err != nil || dir != "/tmp/flag-root" || len(warnings) != 0 {
		t.Fatalf("Root = %q %q %v, want /tmp/flag-root without warnings", dir, warnings, err)
	}
	if os.Getenv("PTY_ROOT") != "/tmp/env-root" || os.Getenv("PTY_SESSION_DIR") != "/tmp/legacy" {
		t.Fatalf("--root changed the environment: PTY_ROOT=%q PTY_SESSION_DIR=%q", os.Getenv("PTY_ROOT"), os.Getenv("PTY_SESSION_DIR"))
	}
	c, _, _ = newTestCommand()
	if _, err := c.ParseArgs(nil); err != nil {
		t.Fatal(err)
	}
	if dir, warnings, err := c.Root(os.Getenv); err != nil || dir != "/tmp/env-root" || len(warnings) != 1 {
		t.Fatalf("Root from the environment = %q %q %v, want /tmp/env-root and the both-set warning", dir, warnings, err)
	}
}
