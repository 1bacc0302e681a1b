package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/term"
)

// histTexts decodes histRows' output into each row's text.
func histTexts(t *testing.T, b []byte) []string {
	t.Helper()
	var rows [][][]any
	if err := json.Unmarshal(append(append([]byte{'['}, b...), ']'), &rows); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var out []string
	for _, r := range rows {
		var s strings.Builder
		for _, run := range r {
			s.WriteString(run[0].(string))
		}
		out = append(out, s.String())
	}
	return out
}

// A page is sent the scrollback lines after its mark, within a batch, and
// one marker row for lines the follower no longer keeps for it.
func TestHistRows(t *testing.T) {
	f := &follower{keep: 5, scrGen: 1, scr: term.New(3, 20, term.Options{Scrollback: 5})}
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(f.scr, "line %d\r\n", i)
	}
	// Lines 1..18 scrolled off (the cursor is on the third row); 14..18
	// are kept.
	var enc rowEncoder
	upTo := f.scr.HistorySeq()

	b, mark := f.histRows(&enc, 1, -1, upTo)
	if got := strings.Join(histTexts(t, b), "|"); got != "line 14|line 15|line 16|line 17|line 18" || mark != upTo {
		t.Errorf("a new page gets %q up to %d, want the kept lines up to %d", got, mark, upTo)
	}
	b, mark = f.histRows(&enc, 1, upTo-5, upTo)
	if got := strings.Join(histTexts(t, b), "|"); got != "line 14|line 15|line 16|line 17|line 18" || mark != upTo {
		t.Errorf("a page that has line 13 gets %q", got)
	}
	b, _ = f.histRows(&enc, 1, upTo-8, upTo)
	if got := strings.Join(histTexts(t, b), "|"); got != "[pty: 3 lines not kept; the page keeps 5]|line 14|line 15|line 16|line 17|line 18" {
		t.Errorf("a page that has line 10 gets %q", got)
	}
	b, mark = f.histRows(&enc, 1, upTo-1, upTo-1)
	if len(b) != 0 || mark != upTo-1 {
		t.Errorf("a page that has every line up to the snapshot's gets %q", b)
	}
	if b, _ := f.histRows(&enc, 2, 0, upTo); len(b) != 0 {
		t.Errorf("a snapshot of another emulator got %q", b)
	}
}

// A batch stops past MaxHistoryBatch bytes; the next one goes on from
// where it stopped.
func TestHistRowsBatch(t *testing.T) {
	const n = 3000
	wide := strings.Repeat("x", 500)
	f := &follower{keep: n, scrGen: 1, scr: term.New(2, 600, term.Options{Scrollback: n})}
	for i := 1; i <= n+1; i++ {
		fmt.Fprintf(f.scr, "%d %s\r\n", i, wide)
	}
	var enc rowEncoder
	upTo := f.scr.HistorySeq()
	var all []string
	mark, batches := int64(-1), 0
	for mark < upTo && batches < 10 {
		var b []byte
		b, mark = f.histRows(&enc, 1, mark, upTo)
		if len(b) > MaxHistoryBatch+1024 {
			t.Fatalf("a batch of %d bytes", len(b))
		}
		all = append(all, histTexts(t, b)...)
		batches++
	}
	if batches < 2 || len(all) != n {
		t.Fatalf("%d lines in %d batches, want %d in more than one", len(all), batches, n)
	}
	for i, l := range all {
		if !strings.HasPrefix(l, fmt.Sprintf("%d ", i+1)) {
			t.Fatalf("row %d is %.20q", i, l)
		}
	}
}
