package send

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunTypesIntoTheSession(t *testing.T) {
	root := testutil.Root(t)
	got := filepath.Join(t.TempDir(), "got")
	testutil.MustRun(t, root, "run", "-d", "--id", "s", "--tag", "keep=true", "--", "sh", "-c", `read line; printf '%s' "$line" > "$0"`, got)
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	if err := Run(Options{Delay: "0", Seq: []string{"hello world", "key:return"}, Args: []string{"s"}}, io); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the session to read the line", func() bool {
		b, _ := os.ReadFile(got)
		return string(b) == "hello world"
	})
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		err := Run(Options{Delay: "0.3", Args: []string{"s", "x"}}, io)
		return err != nil && cli.Message(err) == `Session "s" is not running (status: exited); nothing was sent.`
	})
	c := Command(&Options{})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"s", "--enter", "x"}, `pty: --enter is not a send flag: send adds no newline; to press Return use: pty send REF --seq "TEXT" --seq key:return`},
		{[]string{"s", "a", "--seq", "b"}, "pty: give either TEXT or --seq items, not both: put the text in a --seq item (see 'pty send --help')"},
		{[]string{"s", "a", "b"}, "pty: Unexpected argument: b (quote TEXT with spaces as one argument, or use --seq for several items)"},
		{[]string{"s", "--with-delay", "-1", "x"}, `pty: --with-delay "-1" is not valid: a duration is not negative: write seconds (90, 0.5) or a number and one unit: 500ms, 30s, 15m, 2h, 7d`},
		{[]string{"s", ""}, "pty: Nothing to send. Give TEXT or --seq items (see 'pty send --help')"},
		{[]string{"s", "--seq", "key:nosuchkey"}, ""},
		{[]string{"s", "--file", "f", "t"}, "pty: give either --file or TEXT or --seq items, not several (see 'pty send --help')"},
		{[]string{"s", "-"}, `Session "s" is not running (status: exited); nothing was sent.`},
		{[]string{}, "pty: send needs a session: pty send REF TEXT (see 'pty send --help')"},
	} {
		var o Options
		c = Command(&o)
		Parse(c, &o, tc.args)
		err := Run(o, io)
		if err == nil || tc.want != "" && cli.Message(err) != tc.want {
			t.Errorf("send %q: %v, want %q", tc.args, err, tc.want)
		}
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("send printed %q %q", out.String(), errb.String())
	}
}
