package web_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// sizedTab is a tab whose window is w x h CSS pixels; mobile, it lays the
// page out as a phone does (the viewport meta tag, touch, pinch zoom).
func sizedTab(t *testing.T, w, h int64, mobile bool) context.Context {
	t.Helper()
	ctx := tab(t)
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, opts...)); err != nil {
		t.Fatalf("set the window to %dx%d: %v", w, h, err)
	}
	return ctx
}

func navigate(t *testing.T, ctx context.Context, urls ...string) {
	t.Helper()
	for _, u := range urls {
		if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
			t.Fatal(err)
		}
	}
}

func listOut(t *testing.T, root string) string {
	t.Helper()
	return testutil.Run(t, root, "list").Stdout
}

// An ended session's page says how it ended (exit code or signal) with
// its last lines, and offers no typing, even with --write; a session
// that ends while its page is open drops its input the same way.
func TestBrowserEndedSession(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	failed := startSession(t, root, "failed", "sh", "-c", `echo 'last words'; exit 3`)
	killed := startSession(t, root, "killed", "sh", "-c", `echo 'before the kill'; exec sleep 600`)
	testutil.WaitFor(t, 10*time.Second, "the output", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", killed).Stdout, "before the kill")
	})
	testutil.MustRun(t, root, "kill", killed)
	testutil.WaitFor(t, 10*time.Second, "both to end", func() bool {
		l := listOut(t, root)
		return strings.Contains(l, "exit 3") && strings.Contains(l, "killed (")
	})
	live := startSession(t, root, "live", "sh", "-c", `echo ready; read x; echo "bye $x"; exit 5`)
	w := startWeb(t, root, "--write")
	navigate(t, ctx, w.url)
	for _, tc := range []struct{ id, how, last string }{
		{failed, "exit 3", "last words"},
		{killed, "killed (SIGHUP)", "before the kill"},
	} {
		navigate(t, ctx, w.base+"/s/"+tc.id)
		waitJS(t, ctx, "the ended session's exit", `!document.querySelector('#ended').hidden`)
		got := eval[string](t, ctx, `document.querySelector('#exit').textContent + '|' + document.querySelector('#last').textContent`)
		if !strings.Contains(got, tc.how) || !strings.Contains(got, tc.last) {
			t.Errorf("%s's page says %q, want %q and its last lines (%q)", tc.id, got, tc.how, tc.last)
		}
		if body := eval[string](t, ctx, `document.body.innerText`); strings.Contains(body, "typing enabled") {
			t.Errorf("%s's page says typing enabled:\n%s", tc.id, body)
		}
		if eval[bool](t, ctx, `!!document.querySelector('#input') || !document.querySelector('#keys').hidden`) {
			t.Errorf("%s's page still has an input box or key buttons", tc.id)
		}
	}

	navigate(t, ctx, w.base+"/s/"+live)
	waitJS(t, ctx, "typing enabled", `document.querySelector('#mode').textContent === 'typing enabled' && document.querySelector('#screen').textContent.includes('ready')`)
	click(t, ctx, "#term")
	if err := chromedp.Do(ctx, chromedp.KeyEvent("now\r")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the session to end on the page", `!document.querySelector('#ended').hidden`)
	got := eval[string](t, ctx, `[document.querySelector('#exit').textContent, document.querySelector('#mode').textContent, String(!!document.querySelector('#input'))].join('|')`)
	if !strings.Contains(got, "exit 5") || strings.Contains(got, "typing enabled") || !strings.HasSuffix(got, "|false") {
		t.Errorf("after the session ended the page shows %q: want exit 5, no typing, no input box", got)
	}
}

// A session that is not in the registry is a 404 page that says so, not
// a page that waits for it forever.
func TestBrowserUnknownSession(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	w := startWeb(t, root)
	resp, err := http.Get(w.base + "/s/nosuchsession")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /s/nosuchsession: %d %s, want a 404 page", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	navigate(t, ctx, w.url, w.base+"/s/nosuchsession")
	waitJS(t, ctx, "the page", `document.readyState === 'complete'`)
	body := eval[string](t, ctx, `document.body.innerText`)
	if !strings.Contains(body, "No such session") || strings.Contains(body, "retrying") || strings.Contains(body, "connecting") {
		t.Errorf("the page of an unknown session says:\n%s", body)
	}
	if n := eval[float64](t, ctx, `document.querySelectorAll('a[href="/"]').length`); n == 0 {
		t.Errorf("the 404 page has no way back to the list")
	}
}

// On a phone (390 px) an 80-column screen fits the width: the font is
// scaled to the session's columns, and pinching still zooms in.
func TestBrowserPhoneFitsWidth(t *testing.T) {
	ctx := sizedTab(t, 390, 844, true)
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "wide", "--rows", "24", "--cols", "80", "--",
		"sh", "-c", `printf '%080d\n' 0 | tr 0 x | sed 's/x$/E/'; exec sleep 600`)
	w := startWeb(t, root)
	navigate(t, ctx, w.url, w.base+"/s/wide")
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('xE')`)
	if iw := eval[float64](t, ctx, `window.innerWidth`); iw != 390 {
		t.Fatalf("the page is %v px wide, want the phone's 390", iw)
	}
	// The row's last character is inside the terminal's box, and the page
	// does not scroll sideways.
	geom := eval[[]float64](t, ctx, `(() => {
		const term = document.querySelector('#term').getBoundingClientRect();
		const row = Array.from(document.querySelectorAll('#screen .row')).find(r => r.textContent.includes('xE'));
		const spans = row.querySelectorAll('span');
		const last = spans[spans.length - 1].getBoundingClientRect();
		return [last.right, term.right, document.scrollingElement.scrollWidth, parseFloat(getComputedStyle(document.querySelector('#term')).fontSize)];
	})()`)
	if geom[0] > geom[1] || geom[2] > 390 {
		t.Errorf("the 80th column ends at %v px, the terminal at %v px, the page is %v px wide: the screen does not fit 390 px", geom[0], geom[1], geom[2])
	}
	if geom[3] >= 14 || geom[3] < 5 {
		t.Errorf("font size %v px: want it scaled down to fit 80 columns", geom[3])
	}
	if vp := eval[string](t, ctx, `document.querySelector('meta[name=viewport]').content`); strings.Contains(vp, "user-scalable") || strings.Contains(vp, "maximum-scale") {
		t.Errorf("the viewport meta tag %q stops pinch zoom", vp)
	}
	if _, err := chromedp.Call(ctx, input.SynthesizePinchGesture, input.SynthesizePinchGestureParams{
		X: 195, Y: 300, ScaleFactor: 2}); err != nil {
		t.Fatalf("pinch: %v", err)
	}
	waitJS(t, ctx, "the pinch to zoom in", `visualViewport.scale > 1.5`)
}

// In a short window the header takes its own room: it never covers the
// screen's top row or the button back to the live screen, and the
// terminal's box ends inside the window.
func TestBrowserShortWindow(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "short", "--rows", "24", "--cols", "80", "--",
		"sh", "-c", `seq 1 300; printf 'TOP\n'; seq 1 22; exec sleep 600`)
	w := startWeb(t, root, "--write")
	for _, sz := range []struct {
		w, h   int64
		mobile bool
	}{{1000, 300, false}, {844, 390, true}, {390, 420, true}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			ctx := sizedTab(t, sz.w, sz.h, sz.mobile)
			navigate(t, ctx, w.url, w.base+"/s/short")
			waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('TOP')`)
			// The screen's top row at the top of the terminal's box.
			eval[bool](t, ctx, `(t => { t.scrollTop = document.querySelector('#screen').offsetTop - t.offsetTop; return true })(document.querySelector('#term'))`)
			waitJS(t, ctx, "the button back to the live screen", `!document.querySelector('#tolive').hidden`)
			got := eval[string](t, ctx, `(() => {
				const hdr = document.querySelector('header').getBoundingClientRect();
				const term = document.querySelector('#term').getBoundingClientRect();
				const top = document.querySelector('#screen .row').getBoundingClientRect();
				const btn = document.querySelector('#tolive').getBoundingClientRect();
				const at = (x, y) => document.elementFromPoint(x, y);
				const p = [];
				if (hdr.bottom > term.top) p.push('the header (to ' + hdr.bottom + ') overlaps the terminal (from ' + term.top + ')');
				if (term.bottom > innerHeight) p.push('the terminal ends at ' + term.bottom + ', below the window (' + innerHeight + ')');
				const row = at(top.left + 3, top.top + top.height / 2);
				if (!row || !row.closest('#screen')) p.push('the top row is covered by ' + (row && row.outerHTML.slice(0, 80)));
				const b = at(btn.left + btn.width / 2, btn.top + btn.height / 2);
				if (b !== document.querySelector('#tolive')) p.push('the live button is covered by ' + (b && b.outerHTML.slice(0, 80)));
				if (btn.bottom > innerHeight || btn.top < hdr.bottom) p.push('the live button is outside the window');
				return p.join('; ');
			})()`)
			if got != "" {
				t.Error(got)
			}
			click(t, ctx, "#tolive")
			waitJS(t, ctx, "the view back at the live screen", `(t => t.scrollHeight - t.scrollTop - t.clientHeight < 4)(document.querySelector('#term')) && document.querySelector('#tolive').hidden`)
		})
	}
}

// The page's own find: every match in the scrollback and on the screen
// highlighted, a count, and Enter moving to the older match, into view.
func TestBrowserFind(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "hay", "--rows", "10", "--cols", "80", "--",
		"sh", "-c", `i=0; while [ $i -lt 200 ]; do i=$((i+1)); if [ $((i % 50)) -eq 0 ]; then echo "line $i NeedLe $i"; else echo "line $i"; fi; done; printf '\033[31mneed\033[32mle\033[0m on screen\n'; exec sleep 600`)
	w := startWeb(t, root)
	navigate(t, ctx, w.url, w.base+"/s/hay")
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('on screen')`)
	waitJS(t, ctx, "the scrollback", `document.querySelector('#hist').textContent.includes('NeedLe 50')`)
	click(t, ctx, "#find")
	if err := chromedp.Do(ctx, chromedp.KeyEvent("needle")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the matches counted", `document.querySelector('#findcount').textContent === '5 of 5'`)
	where := eval[[]string](t, ctx, `Array.from(CSS.highlights.get('pty-find') || []).map(r => (r.startContainer.parentElement.closest('#hist') ? 'hist:' : 'screen:') + r.toString())`)
	// Lines 193 to 200 and the last line are on the 10-row screen.
	want := []string{"hist:NeedLe", "hist:NeedLe", "hist:NeedLe", "screen:NeedLe", "screen:needle"}
	if strings.Join(where, ",") != strings.Join(want, ",") {
		t.Errorf("highlighted %q, want %q (a match split across colours starts in its first run)", where, want)
	}
	if got := eval[string](t, ctx, `Array.from(CSS.highlights.get('pty-find')).pop().toString() + '|' + Array.from(CSS.highlights.get('pty-find-current')).pop().toString()`); got != "needle|needle" {
		t.Errorf("the last match and the current one are %q, want the split one on screen", got)
	}
	// Enter twice: the match of line 150, in the scrollback, in view.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r"), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the third match current", `document.querySelector('#findcount').textContent === '3 of 5'`)
	got := eval[string](t, ctx, `(() => {
		const r = Array.from(CSS.highlights.get('pty-find-current'))[0];
		const rr = r.getBoundingClientRect(), tr = document.querySelector('#term').getBoundingClientRect();
		return r.startContainer.parentElement.closest('.row').textContent + '|' + (rr.top >= tr.top && rr.bottom <= tr.bottom);
	})()`)
	if got != "line 150 NeedLe 150|true" {
		t.Errorf("after Enter twice the current match is %q, want line 150's, in view", got)
	}
}

// Links in the output open in a new tab without a handle on the page:
// OSC 8 hyperlinks and plain URLs, http, https and mailto only.
func TestBrowserLinks(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "links", "--rows", "10", "--cols", "120", "--",
		"sh", "-c", `printf 'see https://example.com/a_(b), and http://x.test/p?q=1. mail mailto:me@example.com\n'; `+
			`printf 'no javascript:alert(1) nor data:text/html,x nor ftp://f.test\n'; `+
			`printf 'split \033[31mhttps://ex\033[32mample.org/z\033[0m end\n'; exec sleep 600`)
	w := startWeb(t, root)
	navigate(t, ctx, w.url, w.base+"/s/links")
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('split')`)
	got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#screen a')).map(a => a.getAttribute('href') + ' ' + a.textContent + ' ' + a.target + ' ' + a.rel)`)
	want := []string{
		"https://example.com/a_(b) https://example.com/a_(b) _blank noopener noreferrer",
		"http://x.test/p?q=1 http://x.test/p?q=1 _blank noopener noreferrer",
		"mailto:me@example.com mailto:me@example.com _blank noopener noreferrer",
		"https://example.org/z https://example.org/z _blank noopener noreferrer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The split link keeps its colours.
	if c := eval[string](t, ctx, `Array.from(document.querySelectorAll('#screen a')).pop().firstElementChild.style.color`); c != "rgb(205, 0, 0)" {
		t.Errorf("the split link's first part is %q, want the palette's red", c)
	}
	// A real click opens a new tab, and the page's text stays text.
	ch := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return strings.Contains(i.URL, "example.org") })
	click(t, ctx, `#screen a[href="https://example.org/z"]`)
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Errorf("clicking the link opened no tab")
	}
}

// The list shows how ended sessions ended and each running session's last
// lines, live and bounded.
func TestBrowserListDetails(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	gate := filepath.Join(t.TempDir(), "go")
	failed := startSession(t, root, "failed", "sh", "-c", `exit 7`)
	agent := "agent"
	testutil.MustRun(t, root, "run", "-d", "--id", agent, "--cols", "200", "--", "sh", "-c",
		`echo compiling; printf '%0160d\n' 0; echo 'Proceed? [y/N]'; while [ ! -e `+gate+` ]; do sleep 0.05; done; echo 'answered'; exec sleep 600`)
	testutil.WaitFor(t, 10*time.Second, "the failure", func() bool { return strings.Contains(listOut(t, root), "exit 7") })
	w := startWeb(t, root)
	navigate(t, ctx, w.url)
	row := func(id string) string { return fmt.Sprintf(`document.querySelector('li.session[data-id=%q]')`, id) }
	waitJS(t, ctx, "the failed session's exit", row(failed)+`?.querySelector('.exit.bad')?.textContent === 'exit 7'`)
	if c := eval[string](t, ctx, `getComputedStyle(`+row(failed)+`.querySelector('.exit')).color`); c != "rgb(255, 107, 107)" {
		t.Errorf("a failure's exit is %s, want the page's red", c)
	}
	waitJS(t, ctx, "the agent's preview", row(agent)+`?.querySelector('.preview')?.textContent.includes('Proceed? [y/N]')`)
	lines := eval[[]string](t, ctx, `Array.from(`+row(agent)+`.querySelectorAll('.preview .row')).map(r => r.textContent)`)
	if len(lines) != 3 || lines[0] != "compiling" || len([]rune(lines[1])) != 120 || !strings.HasSuffix(lines[1], "0…") || lines[2] != "Proceed? [y/N]" {
		t.Errorf("the preview is %q, want its last 3 lines, each within 120 characters", lines)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the preview to follow the session", row(agent)+`?.querySelector('.preview')?.textContent.includes('answered')`)
	if n := eval[float64](t, ctx, `performance.getEntriesByType('navigation').length`); n != 1 {
		t.Errorf("the page reloaded (%v navigations)", n)
	}
	if eval[bool](t, ctx, row(failed)+`.querySelector('.preview') !== null`) {
		t.Errorf("an ended session has a preview")
	}
}
