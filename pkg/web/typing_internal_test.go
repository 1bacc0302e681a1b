package web

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/internal/testutil/relay"
	"github.com/ptyorg/pty/pkg/client"
)

// Typing on a route that drops is neither lost silently nor sent twice:
// what the daemon answered is typed once, what it had not answered when
// the route dropped is reported to the page that typed it, and the next
// key goes on a new route. The route here is a relay to a real daemon
// whose way in the test can block, as a dead link's ssh takes bytes into
// a pipe that nobody reads.
func TestTypingOnADroppedRouteIsReported(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "typed", "--", "cat")

	var mu sync.Mutex
	var relays []*relay.Blocking
	routes := 0
	host := RemoteHost{Label: "hostx", Route: func(ctx context.Context, ref string) (*client.Conn, func(), error) {
		r, c, err := relay.NewBlocking(root, ref)
		if err != nil {
			return nil, nil, err
		}
		mu.Lock()
		relays = append(relays, r)
		routes++
		mu.Unlock()
		return c, func() { c.Close() }, nil
	}}
	s := &server{ctx: context.Background(), followers: map[string]*follower{}}
	s.rem = newRemotes([]RemoteHost{host})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &follower{s: s, id: "typed", remote: s.rem.target("hostx"), ctx: ctx, cancel: cancel,
		dirty: make(chan struct{}, 1), changed: make(chan struct{}), code: -1, keep: 100}
	told := make(chan string, 10)
	in := &inputState{f: f, write: true, tell: func(msg string) { told <- msg }}
	screen := func() string { return testutil.MustRun(t, root, "peek", "--plain", "typed").Stdout }

	if err := f.send([]byte("first\r"), in); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the first line to be answered", func() bool {
		f.inMu.Lock()
		defer f.inMu.Unlock()
		f.input.mu.Lock()
		defer f.input.mu.Unlock()
		return len(f.input.waiting) == 0
	})

	mu.Lock()
	relays[0].Block()
	mu.Unlock()
	if err := f.send([]byte("second\r"), in); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-told:
		t.Fatalf("told before the route dropped: %q", msg)
	default:
	}
	mu.Lock()
	relays[0].End()
	mu.Unlock()
	select {
	case msg := <-told:
		if !strings.Contains(msg, "1 key or paste typed last may not have reached the session") || !strings.Contains(msg, "hostx") {
			t.Errorf("told %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the page was not told that its unanswered typing may be lost")
	}

	if err := f.send([]byte("third\r"), in); err != nil {
		t.Fatal(err)
	}
	testutil.WaitForState(t, 10*time.Second, "the third line", func() (bool, string) {
		out := screen()
		return strings.Count(out, "third") == 2, out
	})
	out := screen()
	if strings.Count(out, "first") != 2 || strings.Contains(out, "second") {
		t.Errorf("screen (each line typed once and echoed by cat; the blocked one never): %q", out)
	}
	mu.Lock()
	n := routes
	mu.Unlock()
	if n != 2 {
		t.Errorf("%d routes, want 2 (the third line on a new one)", n)
	}
	select {
	case msg := <-told:
		t.Errorf("told again: %q", msg)
	default:
	}
}
