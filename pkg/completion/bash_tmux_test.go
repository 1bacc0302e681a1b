package completion

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestBashQuotesNames types TAB in a real interactive bash (with
// bash-completion loaded when it is installed) in tmux: a display name
// with a space or a quote must be inserted quoted as the word is typed so
// far, and the command line it makes must then find the session.
func TestBashQuotesNames(t *testing.T) {
	root := testutil.Root(t)
	for _, name := range []string{"API server", "API worker", "it's", "Web1"} {
		testutil.MustRun(t, root, "run", "-d", "--name", name, "--", "sleep", "300")
	}
	home := t.TempDir()
	rc := filepath.Join(home, "bashrc")
	os.WriteFile(rc, []byte(`PS1='$ '
[ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
source <(pty completions bash) || echo NO-SCRIPT
`), 0o644)
	env := []string{"HOME=" + home, "PTY_ROOT=" + root, "PATH=" + testutil.BinDir(t) + ":" + os.Getenv("PATH")}
	tm := testutil.StartUserTmuxCmd(t, 40, 100, env, "bash", "--rcfile", rc, "-i")
	tm.WaitScreen("the prompt", func(s string) bool { return strings.TrimSpace(s) == "$" })
	// Each typed prefix has a character no session id has (ids are
	// lowercase; registry.RandomID): a prefix an id could share would
	// complete only to what the two have in common.
	cases := []struct {
		typed []string // typed text, each followed by TAB
		line  string   // what the command line then says
	}{
		{[]string{"pty peek AP", "s"}, `pty peek API\ server `},
		{[]string{"pty peek API\\ w"}, `pty peek API\ worker `},
		{[]string{"pty peek 'AP", "s"}, `pty peek 'API server' `},
		{[]string{`pty peek "AP`, "w"}, `pty peek "API worker" `},
		{[]string{"pty peek it"}, `pty peek it\'s `},
		{[]string{"pty --root=" + root + " peek We"}, "pty --root=" + root + " peek Web1 "},
	}
	for i, c := range cases {
		tm.Keys("C-l")
		tm.WaitScreen("a cleared screen", func(s string) bool { return strings.TrimSpace(s) == "$" })
		for _, k := range c.typed {
			tm.Keys("-l", k)
			tm.Keys("Tab")
		}
		tm.WaitScreen(fmt.Sprintf("%q completed to %q", c.typed, c.line), func(s string) bool {
			for _, l := range strings.Split(s, "\n") {
				if l == "$ "+strings.TrimSpace(c.line) {
					return true
				}
			}
			return false
		})
		done := fmt.Sprintf("case-%d-rc=", i)
		// Quoted so that the typed line does not itself say done.
		tm.Keys("-l", fmt.Sprintf(`>/dev/null; echo "case-"%d"-rc=$?"`, i))
		tm.Keys("Enter")
		scr := tm.WaitText(done)
		if !strings.Contains(scr, done+"0") {
			t.Errorf("%q: the completed line did not find the session:\n%s", c.line, scr)
		}
	}
}
