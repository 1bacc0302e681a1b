package records

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// A root that is a regular file made run say the id was in use.
func TestRootThatIsAFileIsReportedByEveryCommand(t *testing.T) {
	dir := testutil.Root(t)
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmds := [][]string{
		{"run", "-d", "--id", "a", "--", "true"},
		{"run", "-d", "--", "true"},
		{"list"}, {"list", "--json"},
		{"tag", "a", "x=1"}, {"tag", "a"},
		{"state", "set", "a", "k", "1"}, {"state", "get", "a"},
		{"rename", "a", "web"},
		{"emit", "a", "user.x"},
		{"kill", "a"}, {"rm", "a"}, {"restart", "-y", "a"},
		{"peek", "a"}, {"attach", "a"}, {"send", "a", "x"}, {"stats", "a"},
		{"events", "a", "--recent"},
		{"gc"}, {"gc", "-n"},
		{"tag-multi", "--all"},
		{"evidence", "snapshot", "--id", "a"}, {"evidence", "remove", "--id", "a", "--expected-generation", "g"},
		{"exec", "--", "true"},
	}
	for _, root := range []string{file, filepath.Join(file, "sub")} {
		for _, args := range cmds {
			r := testutil.Run(t, root, args...)
			oneLineError(t, strings.Join(args, " ")+" (root "+root+")", r, "is not a directory")
		}
	}
	if readFile(t, file) != "x" {
		t.Fatal("the file given as root was changed")
	}
}

// Root running a writer with another user's PTY_ROOT rewrote that user's
// files as root-owned 0600, which the user then could not read. Every
// command that changes or stops sessions must refuse, and leave the files
// as they were.
func TestWritersRefuseAnotherUsersRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a root owned by another user")
	}
	root := testutil.Root(t)
	start(t, root, "live")
	testutil.MustRun(t, root, "run", "-d", "--id", "dead", "--tag", "keep=true", "--", "true")
	testutil.WaitFor(t, 10*time.Second, "dead's daemon to finish", func() bool {
		s, err := layout.At(root).Load("dead")
		if err != nil || s.Status != layout.Exited || daemonRunning(root, "dead") {
			return false
		}
		// Its last locks go after its pid file.
		for _, n := range testutil.DirNames(t, root) {
			if strings.HasPrefix(n, "dead.") && strings.HasSuffix(n, ".lock") {
				return false
			}
		}
		return true
	})
	livePid := layout.At(root).Pid("live")
	if out, err := exec.Command("chown", "-R", "65534:65534", root).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	before := snapshotDir(t, root)

	writers := [][]string{
		{"tag", "live", "x=1"}, {"tag", "dead", "x=1"},
		{"tag-multi", "live", "dead", "x=1"},
		{"state", "set", "live", "k", "1"}, {"state", "delete", "live", "k"},
		{"rename", "live", "web"}, {"rename", "--clear", "live"},
		{"emit", "live", "user.x"},
		{"kill", "live"},
		{"rm", "dead"},
		{"restart", "-y", "dead"},
		{"run", "-d", "--id", "new", "--", "true"},
		{"gc"},
		{"evidence", "remove", "--id", "dead", "--expected-generation", "g"},
	}
	for _, args := range writers {
		r := testutil.Run(t, root, args...)
		oneLineError(t, strings.Join(args, " "), r, "owned by uid 65534")
	}
	patch := testutil.Command(t, root, "metadata", "patch", "--id", "live")
	patch.Stdin = strings.NewReader(`{"tags":{"x":"1"}}`)
	oneLineError(t, "metadata patch", testutil.RunCmd(t, patch), "owned by uid 65534")

	// Go programs using the layout package are held to the same rule.
	if _, _, err := layout.At(root).SetTags("live", map[string]string{"x": "1"}, nil); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("Registry.SetTags: %v", err)
	}
	if err := layout.At(root).AppendEvents("live", layout.NewEvent("live", "user.x")); err == nil {
		t.Error("Registry.AppendEvents wrote into another user's root")
	}

	after := snapshotDir(t, root)
	for n, v := range before {
		if after[n] != v {
			t.Errorf("%s changed", n)
		}
	}
	for n := range after {
		if _, ok := before[n]; !ok {
			t.Errorf("%s appeared", n)
		}
	}
	if !proc.Alive(livePid) {
		t.Error("the live session's daemon was stopped")
	}
	// Reading is still fine.
	if r := testutil.MustRun(t, root, "list"); !strings.Contains(r.Stdout, "live") || !strings.Contains(r.Stdout, "dead") {
		t.Errorf("list: %q", r.Stdout)
	}
}

func daemonRunning(root, id string) bool {
	alive, _ := layout.At(root).DaemonAlive(id, "")
	return alive
}
