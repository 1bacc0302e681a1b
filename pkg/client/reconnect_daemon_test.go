package client_test

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/internal/testutil/relay"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/term"
)

// screen is the user's terminal: an emulator that AttachRouted writes to
// while the test reads it.
type screen struct {
	mu     sync.Mutex
	scr    *term.Screen
	writes int
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	return s.scr.Write(p)
}

// lines are the terminal's scrollback and screen, and how many writes
// it had.
func (s *screen) lines() ([]string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scr.Lines(true), s.writes
}

// counter is the terminal's counter lines (n1, n2, ...) and the largest
// number among them, and whether END is there.
func counter(ls []string) (ns []string, top int, end bool) {
	for _, l := range ls {
		if l == "END" {
			end = true
		}
		if len(l) > 1 && l[0] == 'n' && strings.Trim(l[1:], "0123456789") == "" {
			ns = append(ns, l)
			k, _ := strconv.Atoi(l[1:])
			top = max(top, k)
		}
	}
	return ns, top, end
}

// An attach --remote's terminal keeps every line once and in order
// however often its route drops while the session prints: here the route
// is a slow relay to a real daemon on this machine (lines scroll between
// a reattach's count and its ATTACH), which the test closes at random
// moments, mid-line and mid-frame included.
func TestReattachDropsUnderOutput(t *testing.T) {
	for _, tc := range []struct {
		name       string
		scrollback string // the session's; "" its default
		lines      int
		pace       string // a shell command between lines
	}{
		// Counted: the reattach asks for the lines the terminal lacks.
		{name: "counted", lines: 3000, pace: "[ $((i % 8)) = 0 ] && sleep 0.01"},
		// The session's scrollback full: counts say nothing, as many
		// lines as the copy compares come and are compared. Paced so
		// that an outage scrolls by fewer lines than the session keeps.
		{name: "full", scrollback: "800", lines: 2000, pace: "[ $((i % 4)) = 0 ] && sleep 0.01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.Root(t)
			gate := relay.Counter(t, root, "ctr", tc.scrollback, tc.lines, tc.pace)

			r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
			var mu sync.Mutex
			var cur *client.Conn
			routes := 0
			route := func(ref string, _ []byte) (*client.Conn, func(), error) {
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
			}
			user := &screen{scr: term.New(24, 80, term.Options{Scrollback: 100000})}
			type result struct {
				res client.Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := client.AttachRouted(route, "ctr", client.AttachOptions{Out: user, Name: "ctr"},
					client.Reconnect{Host: "local", Final: client.IsNotRunning})
				done <- result{res, err}
			}()
			ended := false
			defer func() {
				if !ended {
					testutil.Run(t, root, "kill", "ctr")
					select {
					case <-done:
					case <-time.After(15 * time.Second):
						t.Error("the attach did not end with the session")
					}
				}
			}()
			testutil.WaitFor(t, 15*time.Second, "the first baseline", func() bool {
				_, n := user.lines()
				return n > 0
			})
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			atEnd := func() bool {
				ls, _ := user.lines()
				_, _, end := counter(ls)
				return end
			}
			drops, dropped := 0, 0
			for deadline := time.Now().Add(90 * time.Second); !atEnd(); drops++ {
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
					return routes > dropped || atEnd()
				})
				mu.Lock()
				pause := time.Duration(r.IntN(300)) * time.Millisecond
				dropped = routes
				mu.Unlock()
				if drops%2 == 1 {
					// Drawn: the terminal has a later line than before
					// (a refused baseline's route is the second).
					ls, _ := user.lines()
					_, was, _ := counter(ls)
					testutil.WaitFor(t, 15*time.Second, "a route's baseline drawn", func() bool {
						ls, _ := user.lines()
						_, top, end := counter(ls)
						return top > was || end
					})
				}
				time.Sleep(pause)
				c.Close()
			}
			// The last route's baseline is drawn once END is; the
			// session's end ends the attach.
			testutil.MustRun(t, root, "kill", "ctr")
			select {
			case res := <-done:
				ended = true
				if res.err != nil && !client.IsNotRunning(res.err) {
					t.Logf("the attach ended with %v", res.err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the attach did not end with the session")
			}
			ls, _ := user.lines()
			ns, _, _ := counter(ls)
			if p := testutil.CounterProblem(ns, tc.lines); p != "" {
				t.Fatalf("after %d drops (%d routes): %s", drops, routes, p)
			}
			t.Logf("%d drops, %d routes, every line once", drops, routes)
		})
	}
}
