package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// bufferText is the page terminal's whole buffer, scrollback and screen,
// a line per row.
const bufferText = `Array.from(document.querySelectorAll('#hist .row, #screen .row')).map(r => r.textContent)`

// A flood in a session whose page is open leaves every line the session
// kept in the page's scrollback, once and in order, in colour, with the
// daemon's marker where the session did not keep them, as an attached
// terminal's scrollback does.
func TestBrowserFloodKeepsScrollback(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, keep    int
		cmd        string
		colourSeen bool
		pre        int  // lines printed before the page opens
		frozen     bool // a second page of the session is frozen through the flood
	}{
		// More than the session keeps: a marker, then its lines.
		{name: "marker", n: 100000, keep: 2000, cmd: testutil.FloodColour, colourSeen: true, frozen: true},
		// All of it kept: every number, after the scrollback the session
		// had when the page opened (long enough to be rendered in slices).
		{name: "all", n: 30000, keep: 50000, cmd: fmt.Sprintf("seq 1 30000 | sed 's/$/ %s/'", testutil.FloodPad), pre: 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tab(t)
			root := testutil.Root(t)
			gate := filepath.Join(t.TempDir(), "go")
			testutil.MustRun(t, root, "run", "-d", "--id", "f", "--rows", "40", "--cols", "120",
				"--scrollback", strconv.Itoa(tc.keep), "--",
				"sh", "-c", fmt.Sprintf("seq 1 %d | sed 's/^/pre /'; ", tc.pre)+"echo READY; while [ ! -e "+gate+" ]; do sleep 0.05; done; "+tc.cmd+"; echo DONE; exec cat")
			w := startWeb(t, root)
			open := func(ctx context.Context) {
				for _, u := range []string{w.url, w.base + "/s/f"} {
					if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
						t.Fatal(err)
					}
				}
				waitJS(t, ctx, "the session's screen", `document.querySelector('#screen').textContent.includes('READY')`)
			}
			open(ctx)
			var frozen context.Context
			if tc.frozen {
				// A page that reads nothing while the session floods
				// (a phone's tab in the background) neither holds the
				// others up nor is queued for: it gets one update at
				// a time, or is dropped and reconnects.
				frozen = tab(t)
				open(frozen)
				lifecycle(t, frozen, page.SetWebLifecycleStateStateFrozen)
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			// The page keeps a line more than the session: its oldest
			// rows go when more floods by than that.
			topDropped := tc.keep < tc.n
			lines := waitFlood(t, ctx, tc.n, tc.keep, topDropped)
			if frozen != nil {
				// Its script took nothing in meanwhile.
				if n := eval[float64](t, frozen, `document.querySelectorAll('#hist .row').length`); n != 0 {
					t.Fatalf("the frozen page drew %v scrollback rows", n)
				}
				lifecycle(t, frozen, page.SetWebLifecycleStateStateActive)
				waitFlood(t, frozen, tc.n, tc.keep, topDropped)
			}
			var pre []string
			for _, l := range lines {
				if strings.HasPrefix(l, "pre ") {
					pre = append(pre, l)
				}
			}
			for i, l := range pre {
				if l != fmt.Sprintf("pre %d", i+1) || len(pre) != tc.pre {
					t.Fatalf("the scrollback the page opened on is %d lines, line %d is %q: want pre 1 to pre %d",
						len(pre), i, l, tc.pre)
				}
			}
			if tc.colourSeen {
				// 99001 % 7 + 1 = 1: the palette's red.
				got := eval[string](t, ctx, `(r => r && getComputedStyle(r.firstElementChild).color)(Array.from(document.querySelectorAll('#hist .row')).find(r => r.textContent.startsWith('99001 ')))`)
				if got != "rgb(205, 0, 0)" {
					t.Errorf("99001 in the scrollback is %q, want the palette's red", got)
				}
			}
		})
	}
}

// waitFlood waits until the page's buffer holds the flood of 1..n, as
// testutil.FloodProblem checks it, and ends with the session's DONE.
func waitFlood(t *testing.T, ctx context.Context, n, keep int, topDropped bool) []string {
	t.Helper()
	var lines []string
	testutil.WaitForState(t, 60*time.Second, "the whole flood in the page's scrollback", func() (bool, string) {
		lines = eval[[]string](t, ctx, bufferText)
		if p := testutil.FloodProblem(lines, n, keep, topDropped); p != "" {
			return false, p
		}
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.TrimSpace(lines[i]) != "" {
				return lines[i] == "DONE", "the last line is " + lines[i]
			}
		}
		return false, "no line"
	})
	return lines
}

func lifecycle(t *testing.T, ctx context.Context, state page.SetWebLifecycleStateState) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: state}); err != nil {
		t.Fatalf("set the page %s: %v", state, err)
	}
}
