package remote

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// browser is a Chromium tab of its own for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		testutil.MissingTool(t, "chromium (apt-get install chromium)")
	}
	dir := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(dir), chromedp.WindowSize(1000, 700))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func pageTrue(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	var last string
	testutil.WaitForState(t, 20*time.Second, what, func() (bool, string) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		last, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
		dbg, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`['status','error','conn','name'].map(i => i + '=' + (document.getElementById(i) || {}).textContent).join(' ')`))
		return err == nil && ok, "page:\n" + last + "\n" + dbg
	})
}

var tickRE = regexp.MustCompile(`tick-(\d+)`)

func lastTickOn(t *testing.T, ctx context.Context) int {
	t.Helper()
	text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#screen') ? document.querySelector('#screen').textContent : ''`))
	n := 0
	for _, m := range tickRE.FindAllStringSubmatch(text, -1) {
		v, _ := strconv.Atoi(m[1])
		n = max(n, v)
	}
	return n
}

// pty web --remotes lists every host's sessions in a group of its own (a
// host that is down with its error) and follows a remote session live on
// its page, through a route, read-only without --write, reconnecting
// when the host's end of the route is killed.
func TestRemoteWeb(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.local, "run", "-d", "--id", "lochere", "--", "sleep", "100")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "ona", "--", "sh", "-c", "i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.3; done")
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "onb", "--", "sleep", "100")
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\n[down]\nssh = \"ssh://127.0.0.1:"+strconv.Itoa(down)+"\"\n[hostb]\nssh = \"hostb\"\n")

	w := startRemoteWeb(t, f)
	url, base := w.url, w.base

	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "every host's group", `!!document.querySelector('li.session[data-id="lochere"]') &&
		!!document.querySelector('section[data-host="hosta"] li[data-id="ona"] a[href="/h/hosta/ona"]') &&
		!!document.querySelector('section[data-host="hostb"] li[data-id="onb"]') &&
		(document.querySelector('section[data-host="down"] .error') || {}).textContent.includes('unreachable')`)
	order := `Array.from(document.querySelectorAll('section.host')).map(s => s.dataset.host).join(' ')`
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](order)); err != nil || got != "hosta down hostb" {
		t.Fatalf("host groups %q (%v), want remotes.toml's order", got, err)
	}

	// The remote session's page, live.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/h/hosta/ona")); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "ona's screen", `document.querySelector('#screen').textContent.includes('tick-')`)
	// Without --write, read-only as a local page is; the host's events
	// show all the same.
	pageTrue(t, ctx, "a read-only page with the host's events", `document.querySelector('#mode').textContent === 'read-only' &&
		document.querySelector('#acts').hidden && document.querySelector('#events').textContent.includes('session_start')`)
	first := lastTickOn(t, ctx)
	testutil.WaitFor(t, 15*time.Second, "the ticks to advance on the page", func() bool { return lastTickOn(t, ctx) >= first+3 })

	// The host's end of every route (and list) is killed: the page is
	// followed again over a new route.
	serve := serving(f.rootA)
	if len(serve) == 0 {
		t.Fatal("no remote-serve on hosta")
	}
	for _, p := range serve {
		syscall.Kill(p, syscall.SIGKILL)
	}
	testutil.WaitFor(t, 20*time.Second, "a new remote-serve on hosta", func() bool {
		for _, p := range serving(f.rootA) {
			if !contains(serve, p) {
				return true
			}
		}
		return false
	})
	after := lastTickOn(t, ctx)
	testutil.WaitFor(t, 20*time.Second, "the ticks to advance after the reconnect", func() bool { return lastTickOn(t, ctx) >= after+3 })

	// A session the host does not have: its word, and the page stops.
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/h/hostb/nosuch")); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "hostb's word on a session it lacks", `document.querySelector('#status').textContent === 'removed' &&
		document.querySelector('#error').textContent.includes('"nosuch" not found')`)

	// A host not in remotes.toml has no pages.
	if r, err := http.Get(base + "/h/elsewhere/ona"); err != nil || r.StatusCode != 404 {
		t.Fatalf("a page of an unknown host: %v %v", r, err)
	}

}

func contains(ps []int, p int) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
