package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/web"
)

// runInProcess runs web.Run with o and returns the server once it serves.
func runInProcess(t *testing.T, o web.Options) *webServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	o.Listen = "127.0.0.1:0"
	o.Ready = func(u string) { urls <- u }
	go func() { done <- web.Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("Run did not return after its context ended")
		}
	})
	select {
	case u := <-urls:
		return parseURL(t, u)
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return nil
}

// TestFlood: under `yes`, a page gets at most ~30 updates a second and
// keeps getting them, and a page that stops acknowledging is dropped
// rather than queued for.
func TestFlood(t *testing.T) {
	root := testutil.Root(t)
	id := startSession(t, root, "flood", "yes", "flood-line")
	w := runInProcess(t, web.Options{Root: root, ViewerTimeout: 2 * time.Second})
	c := loggedIn(t, w)

	stuck, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.CloseNow()
	stuck.SetReadLimit(4 * web.MaxHistoryBatch)
	live, _, err := dialLive(t, w, c, "/live/s/"+id, w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer live.CloseNow()
	live.SetReadLimit(4 * web.MaxHistoryBatch) // the scrollback comes in batches

	stuckErr := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for {
			if _, _, err := stuck.Read(ctx); err != nil {
				stuckErr <- err
				return
			}
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const window = 3 * time.Second
	var start time.Time
	screens := 0
	sawText := false
	for start.IsZero() || time.Since(start) < window {
		_, b, err := live.Read(ctx)
		if err != nil {
			t.Fatalf("the live page lost its connection: %v", err)
		}
		var m struct{ T string }
		json.Unmarshal(b, &m)
		if m.T != "screen" {
			continue
		}
		if start.IsZero() {
			start = time.Now() // the first update is the baseline
		} else {
			screens++
		}
		sawText = sawText || strings.Contains(string(b), "flood-line")
		live.Write(ctx, websocket.MessageText, []byte(`{"t":"ack"}`))
	}
	rate := float64(screens) / time.Since(start).Seconds()
	t.Logf("%d updates in %v (%.1f/s)", screens, window, rate)
	if rate > 1/web.FrameInterval.Seconds()+3 {
		t.Errorf("%.1f updates a second: not coalesced to ~30", rate)
	}
	if screens < 10 || !sawText {
		t.Errorf("%d updates in %v (text seen: %v): the page froze", screens, window, sawText)
	}
	select {
	case err := <-stuckErr:
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Errorf("the stuck page ended with %v, want a policy-violation close", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("a page that never acknowledged was not dropped")
	}
}
