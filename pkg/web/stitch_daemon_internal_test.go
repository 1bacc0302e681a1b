package web

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/internal/testutil/relay"
	"github.com/ptyorg/pty/pkg/client"
)

// A followed remote session's emulator keeps every line once and in
// order however often its route drops while the session prints: here
// the "route" is a connection to a real daemon on this machine, which
// the test closes at random moments, mid-line and mid-frame included.
func TestStitchDropsUnderOutput(t *testing.T) {
	for _, tc := range []struct {
		name       string
		scrollback string // the session's; "" its default
		lines      int
		pace       string // a shell command between lines
	}{
		// Counted: the reconnect asks for the lines the emulator lacks.
		{name: "counted", lines: 3000, pace: "[ $((i % 8)) = 0 ] && sleep 0.01"},
		// The session's scrollback full: counts say nothing, all of it
		// comes and is compared. Paced so that a drop's outage (the
		// 100 ms backoff) scrolls by fewer lines than the session keeps.
		{name: "full", scrollback: "800", lines: 2000, pace: "[ $((i % 4)) = 0 ] && sleep 0.01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.Root(t)
			gate := relay.Counter(t, root, "ctr", tc.scrollback, tc.lines, tc.pace)

			r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
			var mu sync.Mutex
			var cur *client.Conn
			routes := 0
			host := RemoteHost{Label: "local", Route: func(ctx context.Context, ref string) (*client.Conn, func(), error) {
				mu.Lock()
				lag := time.Duration(r.IntN(150)) * time.Millisecond
				mu.Unlock()
				c, err := relay.Slow(root, ref, lag)
				if err != nil {
					return nil, nil, err
				}
				mu.Lock()
				cur = c
				routes++
				mu.Unlock()
				return c, func() { c.Close() }, nil
			}}
			s := &server{ctx: context.Background(), followers: map[string]*follower{}}
			s.rem = newRemotes([]RemoteHost{host})
			ctx, cancel := context.WithCancel(context.Background())
			f := &follower{s: s, id: "ctr", remote: s.rem.target("local"), ctx: ctx, cancel: cancel,
				dirty: make(chan struct{}, 1), changed: make(chan struct{}), code: -1, keep: 20000}
			done := make(chan struct{})
			go func() { f.run(); close(done) }()
			defer func() { cancel(); <-done }()

			text := func() []string {
				f.mu.Lock()
				defer f.mu.Unlock()
				if f.scr == nil {
					return nil
				}
				return f.scr.Lines(true)
			}
			testutil.WaitFor(t, 15*time.Second, "the first baseline", func() bool { return f.link() == "" && text() != nil })
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			ended := func(ls []string) bool {
				for _, l := range ls {
					if l == "END" {
						return true
					}
				}
				return false
			}
			drops, dropped := 0, 0
			for deadline := time.Now().Add(60 * time.Second); !ended(text()); drops++ {
				if time.Now().After(deadline) {
					t.Fatalf("no END after %d drops", drops)
				}
				// A while after a route is up, before its baseline came
				// or after; every other time after, so that no outage
				// outlasts what the session keeps.
				var c *client.Conn
				testutil.WaitFor(t, 15*time.Second, "a route after the last drop", func() bool {
					mu.Lock()
					defer mu.Unlock()
					c = cur
					return routes > dropped || ended(text())
				})
				mu.Lock()
				pause := time.Duration(r.IntN(300)) * time.Millisecond
				dropped = routes
				mu.Unlock()
				if drops%2 == 1 {
					// Drawn: the emulator changes only once the route's
					// baseline is (one asked for again is the second).
					was := strings.Join(text(), "\n")
					testutil.WaitFor(t, 15*time.Second, "a route's baseline drawn", func() bool {
						return strings.Join(text(), "\n") != was || ended(text())
					})
				}
				time.Sleep(pause)
				c.Close()
			}
			testutil.WaitFor(t, 15*time.Second, "END on the screen after the last drop", func() bool { return f.link() == "" && ended(text()) })
			var ns []string
			for _, l := range text() {
				if len(l) > 1 && l[0] == 'n' && strings.Trim(l[1:], "0123456789") == "" {
					ns = append(ns, l)
				}
			}
			if p := testutil.CounterProblem(ns, tc.lines); p != "" {
				t.Fatalf("after %d drops (%d routes): %s", drops, routes, p)
			}
			t.Logf("%d drops, %d routes, every line once", drops, routes)
		})
	}
}
