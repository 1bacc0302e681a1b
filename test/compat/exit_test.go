package compat

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// exitProgram waits for a line, then exits 3: the EXIT frame's code must
// reach the other side's attached client.
var exitProgram = []string{"sh", "-c", `echo READY; read x; echo bye; exit 3`}

// TestExitWhileAttached: a session that ends while the other side's client
// is attached ends that client with the session's exit code.
func TestExitWhileAttached(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	oursMust(t, root, append([]string{"run", "-d", "--id", "go3", "--tag", "keep=true", "--"}, exitProgram...)...)
	up.start(t, root, "up3", append([]string{"--"}, exitProgram...)...)
	for _, c := range []struct {
		what, id string
		client   func() *userTerm
	}{
		{"upstream attach on our daemon", "go3", func() *userTerm {
			return startTerm(t, up.command(t, root, "attach", "go3"), 24, 80)
		}},
		{"our attach on upstream's daemon", "up3", func() *userTerm {
			return startTerm(t, testutil.Command(t, root, "", "attach", "up3"), 24, 80)
		}},
	} {
		u := c.client()
		u.waitLines(t, []string{"READY"}, c.what)
		u.write(t, "\r")
		u.waitOutput(t, "["+c.id+" exited with code 3]", c.what+" to report the exit")
		if code := u.exit(t); code != 3 {
			t.Errorf("%s exited %d, want the session's 3", c.what, code)
		}
		if !strings.Contains(u.output(), "bye") {
			t.Errorf("%s missed the last output: %q", c.what, u.output())
		}
		our, their := sides(t, up, root)
		for _, s := range []side{our, their} {
			testutil.WaitFor(t, 5*time.Second, s.name+" list to see "+c.id+" exited", func() bool {
				e := parseList(t, s.name, s.must(t, "list", "--json").Stdout)[c.id]
				return e.Status == "exited" && e.ExitCode != nil && *e.ExitCode == 3
			})
		}
	}
	// Upstream saves its exit record twice: at the exit, with the output
	// read so far, and again 500 ms later at shutdown with all of it.
	var m *layout.Metadata
	testutil.WaitFor(t, 5*time.Second, "upstream's final exit record to read here", func() bool {
		var err error
		m, err = layout.ReadMetadata(root, "up3")
		return err == nil && m.ExitCode != nil && *m.ExitCode == 3 &&
			len(m.LastLines) > 0 && m.LastLines[len(m.LastLines)-1] == "bye"
	})
}
