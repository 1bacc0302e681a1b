package list

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

type entry struct {
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	Pid         *int              `json:"pid"`
	Command     string            `json:"command"`
	Cwd         string            `json:"cwd"`
	CreatedAt   string            `json:"createdAt"`
	ExitCode    *int              `json:"exitCode"`
	ExitedAt    *string           `json:"exitedAt"`
	Tags        map[string]string `json:"tags"`
	DisplayName *string           `json:"displayName"`
}

func listJSON(t *testing.T, root string, args ...string) []entry {
	t.Helper()
	r := testutil.MustRun(t, root, append([]string{"list", "--json"}, args...)...)
	var es []entry
	if err := json.Unmarshal([]byte(r.Stdout), &es); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r.Stdout)
	}
	return es
}

func statusOf(t *testing.T, root, id string) string {
	for _, e := range listJSON(t, root) {
		if e.Name == id {
			return e.Status
		}
	}
	return ""
}

// threeKinds fills root with a running, an exited and a vanished session.
func threeKinds(t *testing.T, root string) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", "run1", "--name", "web", "--tag", "team=a", "--tag", "strategy=permanent", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "exit1", "--tag", "keep=true", "--tag", "team=b", "--", "sh", "-c", "exit 3")
	testutil.MustRun(t, root, "run", "-d", "--id", "van1", "--", "sleep", "1001")
	b, err := os.ReadFile(filepath.Join(root, "van1.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL leaves no exit record: the session vanishes.
	syscall.Kill(pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "exit1 exited and van1 vanished", func() bool {
		return statusOf(t, root, "exit1") == "exited" && statusOf(t, root, "van1") == "vanished"
	})
}

// snapshot records every entry under root: name, mode, size, mtime and
// the contents of regular files.
func snapshot(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += " " + strconv.Quote(string(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

var variants = [][]string{
	{"list"}, {"ls"}, {"list", "--json"}, {"list", "--tags"}, {"list", "--summary"}, {"list", "--summary", "--json"},
	{"list", "--status", "running"}, {"list", "--status", "vanished", "--json"}, {"list", "--filter-tag", "team=a"},
	{"list", "--older-than", "1s"}, {"list", "--newer-than", "1d", "--json"}, {"list", "--status", "exited", "--summary"},
}

func TestListNeverChangesTheRegistry(t *testing.T) {
	root := testutil.Root(t)
	threeKinds(t, root)
	// The exited session's daemon finishes shutting down after recording
	// the exit; wait until its files have settled.
	testutil.WaitFor(t, 10*time.Second, "exit1's daemon to finish", func() bool {
		_, err := os.Stat(filepath.Join(root, "exit1.sock"))
		return os.IsNotExist(err)
	})
	before := snapshot(t, root)
	for _, args := range variants {
		testutil.MustRun(t, root, args...)
		if after := snapshot(t, root); after != before {
			t.Fatalf("pty %v changed the registry:\nbefore:\n%s\nafter:\n%s", args, before, after)
		}
	}

	// A root that does not exist stays that way.
	missing := filepath.Join(root, "not-there")
	for _, args := range variants {
		testutil.MustRun(t, missing, args...)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("list created the root %s", missing)
	}
}

func TestListContents(t *testing.T) {
	root := testutil.Root(t)
	if r := testutil.MustRun(t, root, "list"); r.Stdout != "No sessions.\n" {
		t.Errorf("empty list = %q", r.Stdout)
	}
	if r := testutil.MustRun(t, root, "list", "--json"); strings.TrimSpace(r.Stdout) != "[]" {
		t.Errorf("empty list --json = %q", r.Stdout)
	}
	threeKinds(t, root)

	es := listJSON(t, root)
	if len(es) != 3 {
		t.Fatalf("list --json = %+v", es)
	}
	// Sorted by displayName ?? id: "exit1"'s default display name is
	// derived from its cwd and command, so look them up by name.
	byName := map[string]entry{}
	var order []string
	for _, e := range es {
		byName[e.Name] = e
		n := e.Name
		if e.DisplayName != nil {
			n = *e.DisplayName
		}
		order = append(order, n)
	}
	if !sort.StringsAreSorted(order) {
		t.Errorf("not sorted by display name: %v", order)
	}
	r, x, v := byName["run1"], byName["exit1"], byName["van1"]
	if r.Status != "running" || r.Pid == nil || *r.Pid <= 0 || r.ExitCode != nil || r.ExitedAt != nil || r.DisplayName == nil || *r.DisplayName != "web" || r.Command != "sleep 1000" || r.Tags["team"] != "a" {
		t.Errorf("running entry = %+v", r)
	}
	if x.Status != "exited" || x.ExitCode == nil || *x.ExitCode != 3 || x.ExitedAt == nil || x.Pid != nil {
		t.Errorf("exited entry = %+v", x)
	}
	if v.Status != "vanished" || v.ExitCode != nil || v.Pid != nil {
		t.Errorf("vanished entry = %+v", v)
	}

	ids := func(args ...string) string {
		var out []string
		for _, e := range listJSON(t, root, args...) {
			out = append(out, e.Name)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--status", "running"}, "run1"},
		{[]string{"--status", "vanished"}, "van1"},
		{[]string{"--filter-tag", "team=b"}, "exit1"},
		{[]string{"--filter-tag", "team=a", "--filter-tag", "strategy=permanent"}, "run1"},
		{[]string{"--filter-tag", "team=a", "--status", "exited"}, ""},
		{[]string{"--older-than", "1d"}, ""},
		{[]string{"--newer-than", "1h"}, "exit1,run1,van1"},
	} {
		if got := ids(c.args...); got != c.want {
			t.Errorf("list --json %v = %q, want %q", c.args, got, c.want)
		}
	}

	text := testutil.MustRun(t, root, "list").Stdout
	for _, want := range []string{"Running (1):", "Exited (1):", "Vanished (no exit record — killed or crashed) (1):", "#team=a", "[permanent]", "exit 3", "sleep 1000"} {
		if !strings.Contains(text, want) {
			t.Errorf("list text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "#strategy") || strings.Contains(text, "\x1b[") {
		t.Errorf("list text shows reserved tags or colour when not a terminal:\n%s", text)
	}
	if tags := testutil.MustRun(t, root, "list", "--tags").Stdout; !strings.Contains(tags, "#strategy=permanent") {
		t.Errorf("list --tags lacks the strategy tag:\n%s", tags)
	}

	var sum struct {
		Total    int            `json:"total"`
		ByStatus map[string]int `json:"byStatus"`
		Oldest   *struct{ Name string }
		Newest   *struct{ Name string }
	}
	json.Unmarshal([]byte(testutil.MustRun(t, root, "list", "--summary", "--json").Stdout), &sum)
	if sum.Total != 3 || sum.ByStatus["running"] != 1 || sum.ByStatus["exited"] != 1 || sum.ByStatus["vanished"] != 1 || sum.Oldest == nil || sum.Newest == nil {
		t.Errorf("summary = %+v", sum)
	}

	for _, bad := range [][]string{{"--older-than", "1h30m"}, {"--status", "dead"}, {"--filter-tag", "novalue"}, {"extra"}} {
		res := testutil.Run(t, root, append([]string{"list"}, bad...)...)
		if res.Code != 1 || res.Stdout != "" || strings.Count(strings.TrimSpace(res.Stderr), "\n") != 0 || res.Stderr == "" {
			t.Errorf("list %v: exit %d stdout %q stderr %q; want one error line", bad, res.Code, res.Stdout, res.Stderr)
		}
	}
}

// A name or tag holding bidi controls or zero-width characters, written
// by another tool (pty refuses them), is listed escaped: raw, an override
// reverses what follows it and a zero-width space makes one name pass for
// another.
func TestListEscapesInvisibleCharacters(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "inv", "--name", "plainname", "--tag", "k=plainvalue", "--", "sleep", "60")
	p := filepath.Join(root, "inv.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"plainname"`, `"exe.\u202etxt\u200b"`, 1)
	s = strings.Replace(s, `"plainvalue"`, `"\ufeffv\u2066"`, 1)
	if s == string(b) {
		t.Fatalf("record lacks the name or tag:\n%s", b)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	out := testutil.MustRun(t, root, "list", "--tags").Stdout
	for _, want := range []string{`exe.\u202etxt\u200b`, `\ufeffv\u2066`} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %s:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\u202e\u200b\ufeff\u2066") {
		t.Errorf("list printed an invisible character raw: %q", out)
	}
}
