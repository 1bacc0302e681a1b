package records

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// tempFiles lists the in-flight atomic writes left in root.
func tempFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, n := range testutil.DirNames(t, root) {
		if fsx.IsTemp(n) {
			out = append(out, n)
		}
	}
	return out
}

// start runs a real detached session that outlives its command.
func start(t *testing.T, root, id string, extra ...string) {
	t.Helper()
	args := append([]string{"run", "-d", "--id", id, "--tag", "keep=true"}, extra...)
	testutil.MustRun(t, root, append(args, "--", "sleep", "1000")...)
	// run -d returns before the daemon has taken the session over; its
	// launch claim goes then, which frees room a full-disk test counts.
	testutil.WaitFor(t, 10*time.Second, id+"'s daemon to take over its launch claim", func() bool {
		_, err := os.Lstat(layout.At(root).Paths(id).Launch())
		return errors.Is(err, os.ErrNotExist)
	})
}

// oneLineError checks a refusal: exit status 1 and one line on stderr
// containing want.
func oneLineError(t *testing.T, what string, r testutil.Result, want string) {
	t.Helper()
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Count(strings.TrimRight(r.Stderr, "\n"), "\n") != 0 {
		t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line containing %q", what, r.Code, r.Stderr, want)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func snapshotDir(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range testutil.DirNames(t, root) {
		fi, err := os.Lstat(filepath.Join(root, n))
		if err != nil || !fi.Mode().IsRegular() {
			out[n] = "<" + fi.Mode().String() + ">"
			continue
		}
		out[n] = readFile(t, filepath.Join(root, n))
	}
	return out
}
