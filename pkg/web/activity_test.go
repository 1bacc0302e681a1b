package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// listActivity reads list messages from the live channel until cond holds
// of the sessions' activity (id -> markers), and returns the last.
func listActivity(t *testing.T, w *webServer, what string, cond func(map[string][]string) bool) map[string][]string {
	t.Helper()
	conn, _, err := dialLive(t, w, nil, "/live/list", w.base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var got map[string][]string
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s in the list (last %v): %v", what, got, err)
		}
		var msg struct {
			Sessions []struct {
				ID       string   `json:"id"`
				Activity []string `json:"activity"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatalf("list message %q: %v", b, err)
		}
		got = map[string][]string{}
		for _, s := range msg.Sessions {
			got[s.ID] = s.Activity
		}
		if cond(got) {
			return got
		}
	}
}

// TestListShowsActivity: the list's data carries a detached session's
// bell and notification, the page shows them as [bell] and [notified],
// and opening the session's page, which shows it, clears them.
func TestListShowsActivity(t *testing.T) {
	root := testutil.Root(t)
	bell := startSession(t, root, "ringer", "sh", "-c", `printf '\a\033]777;notify;T;B\033\\'; echo rang; exec sleep 600`)
	quiet := startSession(t, root, "quiet", "sh", "-c", `printf '\033]0;title\007'; echo quiet; exec sleep 600`)
	w := startWeb(t, root)
	listActivity(t, w, "the bell and the notification", func(a map[string][]string) bool {
		return slices.Equal(a[bell], []string{"bell", "notified"})
	})
	testutil.WaitFor(t, 10*time.Second, "quiet's output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", quiet).Stdout, "quiet")
	})
	if a := listActivity(t, w, "the list", func(map[string][]string) bool { return true }); a[quiet] != nil {
		t.Errorf("a title ended by BEL shows as activity %v", a[quiet])
	}

	ctx := tab(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`document.querySelector('li.session[data-id=%q]')`, bell)
	waitJS(t, ctx, "the markers on the list page", row+`?.textContent.includes('[bell][notified]')`)
	if n := eval[float64](t, ctx, fmt.Sprintf(`document.querySelectorAll('li.session[data-id=%q] .activity').length`, quiet)); n != 0 {
		t.Errorf("the quiet session's row has %v activity markers", n)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+bell)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the session's screen", `document.querySelector('#screen').textContent.includes('rang')`)
	listActivity(t, w, "the markers cleared by the session's page", func(a map[string][]string) bool {
		return a[bell] == nil
	})
}
