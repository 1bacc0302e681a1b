package tag

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// TestTagMultiHidesReservedTagsAsListDoes: gc's strategy.* bookkeeping is
// left out of tag-multi's printed tags, as pty list leaves it out, with a
// line saying so; --tags shows it, as list --tags does, and --json always
// has every tag.
func TestTagMultiHidesReservedTagsAsListDoes(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "perm", "--name", "perm", "--permanent", "--", "sleep", "300")
	testutil.MustRun(t, root, "run", "-d", "--id", "plain", "--name", "plain", "--", "sleep", "300")
	testutil.MustRun(t, root, "tag", "perm", "role=web", "strategy.command-hash=abc", "strategy.consecutive-fast-fails=0", ":l1-x=1")

	list := testutil.MustRun(t, root, "list").Stdout
	if strings.Contains(list, "strategy") || !strings.Contains(list, "#role=web") {
		t.Fatalf("list shows:\n%s", list)
	}
	want := "perm:\n  role=web\nplain:\n  (no tags)\n(4 reserved tags hidden: ptyfile*, strategy*, :*; --tags shows them)\n"
	if got := testutil.MustRun(t, root, "tag-multi", "--all").Stdout; got != want {
		t.Errorf("tag-multi --all:\n%s\nwant:\n%s", got, want)
	}
	all := testutil.MustRun(t, root, "tag-multi", "--all", "--tags").Stdout
	for _, kv := range []string{"  :l1-x=1\n", "  role=web\n", "  strategy=permanent\n", "  strategy.command-hash=abc\n", "  strategy.consecutive-fast-fails=0\n"} {
		if !strings.Contains(all, kv) {
			t.Errorf("tag-multi --all --tags has no %q:\n%s", kv, all)
		}
	}
	if strings.Contains(all, "hidden") {
		t.Errorf("tag-multi --all --tags says something is hidden:\n%s", all)
	}
	var got map[string]map[string]string
	if err := json.Unmarshal([]byte(testutil.MustRun(t, root, "tag-multi", "--all", "--json").Stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got["perm"]) != 5 || got["perm"]["strategy.command-hash"] != "abc" {
		t.Errorf("tag-multi --all --json: %v, want all five tags of perm", got)
	}
}
