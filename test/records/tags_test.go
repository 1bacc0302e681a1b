package records

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// Each tags_change holds both full tag maps and retention counted only
// lines: 20 tags of 100 KB and 70 small changes made a 240 MB log.
func TestTagSizesAndTheEventLogAreBounded(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	p := layout.At(root).Paths("s")
	before := readFile(t, p.Meta())

	oneLineError(t, "5000-byte value", testutil.Run(t, root, "tag", "s", "big="+strings.Repeat("v", 5000)), "at most 4096")
	oneLineError(t, "run --tag 5000-byte value", testutil.Run(t, root, "run", "-d", "--id", "t", "--tag", "big="+strings.Repeat("v", 5000), "--", "true"), "at most 4096")
	many := []string{"tag", "s"}
	for i := range 300 {
		many = append(many, fmt.Sprintf("k%d=1", i))
	}
	oneLineError(t, "300 tags", testutil.Run(t, root, many...), "at most 256")
	if readFile(t, p.Meta()) != before {
		t.Fatal("a refused tag change wrote the record")
	}

	// Fill the tags up to their total, then one more is refused.
	val := strings.Repeat("v", 4000)
	i := 0
	for ; i < 20; i++ {
		r := testutil.Run(t, root, "tag", "s", fmt.Sprintf("k%02d=%s", i, val))
		if r.Code != 0 {
			oneLineError(t, "tags past 64 KiB", r, "at most 65536 (64 KiB)")
			break
		}
	}
	if i != 16 {
		t.Fatalf("the tag total was refused at tag %d, want 16", i)
	}
	// Removing is always possible.
	testutil.MustRun(t, root, "tag", "s", "--rm", "k00")
	testutil.MustRun(t, root, "tag", "s", "k00="+val)

	for j := range 70 {
		testutil.MustRun(t, root, "tag", "s", fmt.Sprintf("n=%d", j))
	}
	fi, err := os.Stat(p.Events())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > layout.EventsMaxBytes {
		t.Fatalf("event log is %d bytes, over its %d-byte bound", fi.Size(), layout.EventsMaxBytes)
	}
	evs, err := layout.At(root).Events("s")
	if err != nil || len(evs) == 0 {
		t.Fatal(evs, err)
	}
	last := evs[len(evs)-1]
	if v, _ := last.Fields["value"].(map[string]any); last.Type != layout.EventTagsChange || v["n"] != "69" {
		t.Fatalf("newest event is not the last change: %+v", last.Type)
	}

	// User events are bounded too.
	oneLineError(t, "emit 100 KiB", testutil.Run(t, root, "emit", "s", "user.x", "--text", strings.Repeat("t", 100<<10)), "64 KiB")
}
