package records

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

func stateSet(t *testing.T, root, id, key string, value []byte) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "state", "set", id, key, "-")
	cmd.Stdin = bytes.NewReader(value)
	return testutil.RunCmd(t, cmd)
}

func nested(depth int) []byte {
	return append(bytes.Repeat([]byte("["), depth), bytes.Repeat([]byte("]"), depth)...)
}

// A 20 KB value nested 9,900 deep became a 187 MB record (every level
// indented) and a 5 s `pty list`.
func TestDeepStateValuesAreRefusedAndRecordsStayLinear(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	meta := layout.At(root).Paths("s").Meta()
	before := readFile(t, meta)

	r := stateSet(t, root, "s", "deep", append(nested(9900), '\n'))
	oneLineError(t, "9900-deep value", r, "32 levels")
	if readFile(t, meta) != before {
		t.Fatal("a refused value changed the record")
	}

	// The deepest value allowed, and the record stays small.
	testutil.MustRun(t, root, "state", "set", "s", "ok", string(nested(32)))
	if got := testutil.MustRun(t, root, "state", "get", "s", "ok").Stdout; got != string(nested(32))+"\n" {
		t.Fatalf("state get: %q", got)
	}

	// A deep value another writer left in the record (an unknown field)
	// is rewritten compact, not indented level by level.
	b := []byte(readFile(t, meta))
	i := bytes.LastIndexByte(b, '}')
	deep := append(append([]byte(`,"fromElsewhere":`), nested(3000)...), '}', '\n')
	if err := os.WriteFile(meta, append(b[:i:i], deep...), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "tag", "s", "a=1")
	after := readFile(t, meta)
	if len(after) > 3*len(b)+2*len(deep) {
		t.Fatalf("record is %d bytes after a tag change, from %d bytes of content", len(after), len(b)+len(deep))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(after)); err != nil {
		t.Fatalf("record is not JSON: %v", err)
	}
	if !strings.Contains(compact.String(), `"fromElsewhere":`+string(nested(3000))) {
		t.Fatal("the unknown deep field was not kept")
	}

	// Such a value in the state bag prints compact below a few levels.
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(compact.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	rec["state"] = json.RawMessage(`{"deep":` + string(nested(3000)) + `}`)
	nb, _ := json.Marshal(rec)
	if err := os.WriteFile(meta, nb, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := testutil.MustRun(t, root, "state", "get", "s").Stdout; len(out) > 3*6000 {
		t.Fatalf("state get printed %d bytes for a 6000-byte value", len(out))
	}
}

// The whole state bag is bounded, not just each value.
func TestStateBagTotalIsBounded(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	big := append(append([]byte(`"`), bytes.Repeat([]byte("x"), 9<<20)...), '"')
	if r := stateSet(t, root, "s", "one", big); r.Code != 0 {
		t.Fatalf("first 9 MiB value: %+v", r)
	}
	before := readFile(t, layout.At(root).Paths("s").Meta())
	r := stateSet(t, root, "s", "two", big)
	oneLineError(t, "second 9 MiB value", r, "at most 16777216 (16 MiB) are allowed in all")
	if readFile(t, layout.At(root).Paths("s").Meta()) != before {
		t.Fatal("a refused value changed the record")
	}
	// Replacing the one value is fine.
	if r := stateSet(t, root, "s", "one", big[:len(big)-2]); r.Code == 0 {
		t.Fatal("accepted a value that is not JSON")
	}
	if r := stateSet(t, root, "s", "one", []byte(`"small"`)); r.Code != 0 {
		t.Fatalf("replace: %+v", r)
	}
}
