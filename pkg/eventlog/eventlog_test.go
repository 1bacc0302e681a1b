package eventlog

import (
	"context"
	"fmt"
	"github.com/ptyorg/pty/internal/testutil"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

// collector runs a Follower in the background and records what it delivers.
type collector struct {
	mu    sync.Mutex
	lines []Line
	done  chan error
	stop  context.CancelFunc
}

func follow(t *testing.T, f Follower) *collector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := &collector{done: make(chan error, 1), stop: cancel}
	ready := make(chan struct{})
	f.Ready = func() { close(ready) }
	go func() {
		c.done <- f.Follow(ctx, func(l Line) error {
			c.mu.Lock()
			c.lines = append(c.lines, l)
			c.mu.Unlock()
			return nil
		})
	}()
	select {
	case <-ready:
	case err := <-c.done:
		t.Fatalf("follow ended before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("follower not ready after 10s")
	}
	t.Cleanup(func() {
		cancel()
		if err := <-c.done; err != nil {
			t.Errorf("follow: %v", err)
		}
	})
	return c
}

func (c *collector) snapshot() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Line(nil), c.lines...)
}

func (c *collector) waitCount(t *testing.T, n int) []Line {
	t.Helper()
	var got []Line
	testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("%d lines", n), func() (bool, string) {
		got = c.snapshot()
		return len(got) >= n, fmt.Sprintf("%d lines", len(got))
	})
	return got
}

func emit(t *testing.T, root, id string, i int) {
	t.Helper()
	if err := layout.At(root).AppendEvents(id, layout.NewEvent(id, "user.n", "i", i)); err != nil {
		t.Fatal(err)
	}
}

// seq checks the delivered events are exactly user.n i=from..to-1 in order.
func seq(t *testing.T, lines []Line, from, to int) {
	t.Helper()
	if len(lines) != to-from {
		t.Fatalf("delivered %d events, want %d", len(lines), to-from)
	}
	for k, l := range lines {
		if got, _ := l.Event.Fields["i"].(float64); int(got) != from+k {
			t.Fatalf("event %d has i=%v, want %d (lost or repeated lines)", k, l.Event.Fields["i"], from+k)
		}
	}
}

func TestFollowStartsAtEndAndDeliversInOrder(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 5; i++ {
		emit(t, root, "a", i)
	}
	c := follow(t, Follower{Root: root, IDs: []string{"a"}})
	for i := 5; i < 105; i++ {
		emit(t, root, "a", i)
	}
	seq(t, c.waitCount(t, 100), 5, 105)
}

func TestFollowSurvivesRetentionRewrites(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 900; i++ {
		emit(t, root, "a", i)
	}
	c := follow(t, Follower{Root: root, IDs: []string{"a"}})
	const total = 3000 // several rewrites from 1000 lines down to 500
	// Count replacements as changes of inode from one append to the next:
	// the filesystem may hand a freed inode number to a later rewrite, so
	// a set of distinct numbers can undercount.
	var last uint64
	replaced := 0
	for i := 900; i < total; i++ {
		emit(t, root, "a", i)
		if fi, err := os.Stat(layout.At(root).Paths("a").Events()); err == nil {
			if ino := inode(fi); last != 0 && ino != last {
				replaced++
			}
			last = inode(fi)
		}
		// Keep the follower within one rewrite of the writer: a reader
		// that sleeps through two rewrites cannot see the lines that
		// lived only in the file between them, and that is the reader's
		// problem, not the one tested here.
		if i%100 == 0 {
			c.waitCount(t, i-900-200)
		}
	}
	if replaced < 2 {
		t.Fatalf("the log was replaced only %d times; the test did not exercise retention", replaced)
	}
	seq(t, c.waitCount(t, total-900), 900, total)
}

func TestFollowAllSeesNewSessions(t *testing.T) {
	root := t.TempDir()
	emit(t, root, "old", 0)
	c := follow(t, Follower{Root: root})
	emit(t, root, "new", 1)
	emit(t, root, "old", 2)
	got := c.waitCount(t, 2)
	ids := map[string]bool{}
	for _, l := range got {
		ids[l.ID] = true
	}
	if !ids["new"] || !ids["old"] || len(got) != 2 {
		t.Fatalf("delivered %+v", got)
	}
}

func TestFollowPartialLinesAndRecreation(t *testing.T) {
	root := t.TempDir()
	p := layout.At(root).Paths("a").Events()
	os.WriteFile(p, []byte(`{"session":"a","type":"user.n","ts":"2024-01-01T00:00:00.000Z","i":0}`+"\n"+`{"session":"a","ty`), 0o600)
	c := follow(t, Follower{Root: root, IDs: []string{"a"}})
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`pe":"user.n","ts":"2024-01-01T00:00:00.000Z","i":1}` + "\n")
	f.Close()
	// The line that was mid-write when following began is news; the
	// complete one before it is history.
	seq(t, c.waitCount(t, 1), 1, 2)

	// pty rm, then a new session with the same id: its log is all news.
	os.Remove(p)
	emit(t, root, "a", 2)
	emit(t, root, "a", 3)
	got := c.waitCount(t, 3)
	seq(t, got[1:], 2, 4)
}

func TestResumeOffset(t *testing.T) {
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	old := lines(0, 1001)
	neu := lines(501, 1001) + lines(1001, 1003)
	if got, want := ResumeOffset([]byte(old), []byte(neu)), len(lines(501, 1001)); got != want {
		t.Errorf("one retention pass: offset %d, want %d", got, want)
	}
	// Identical lines: the retention count decides.
	same := strings.Repeat("x\n", 1001)
	if got, want := ResumeOffset([]byte(same), []byte(strings.Repeat("x\n", 502))), 2*layout.EventsKeepLines; got != want {
		t.Errorf("identical lines: offset %d, want %d", got, want)
	}
	if got := ResumeOffset([]byte(old), []byte("other\n")); got != 0 {
		t.Errorf("unrelated log: offset %d, want 0", got)
	}
	if got := ResumeOffset(nil, []byte(neu)); got != 0 {
		t.Errorf("nothing delivered: offset %d, want 0", got)
	}
}

func TestRecentAndFormat(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 60; i++ {
		emit(t, root, "a", i)
	}
	emit(t, root, "b", 100)
	r, err := Recent(root, "a", 50)
	if err != nil {
		t.Fatal(err)
	}
	seq(t, r, 10, 60)
	all, err := RecentAll(root, 50)
	if err != nil || len(all) != 50 || all[49].ID != "b" {
		t.Fatalf("RecentAll: %d lines, err %v", len(all), err)
	}
	l := parseLine("a", []byte(`{"session":"a","type":"title_change","ts":"2024-05-06T07:08:09.000Z","value":"x\u009b2J<b>"}`))
	got := Format(l, time.UTC)
	if want := `07:08:09  a  title_change  {"value":"x\u009b2J<b>"}`; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if got := Format(parseLine("a", []byte(`{"session":"a","type":"bell","ts":"2024-05-06T07:08:09.000Z"}`)), time.UTC); got != "07:08:09  a  bell" {
		t.Errorf("Format(bell) = %q", got)
	}
}
