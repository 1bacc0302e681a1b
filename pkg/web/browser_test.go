package web_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ptyorg/pty/internal/testutil"
)

// One Chromium serves every browser test of the package: it is the
// expensive part, and the machine is shared.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
	browserDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if browserCancel != nil {
		browserCancel()
	}
	if browserDir != "" {
		os.RemoveAll(browserDir)
	}
	os.Exit(code)
}

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab opens a new tab of the shared browser.
func tab(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		testutil.MissingTool(t, "chromium (apt-get install chromium)")
	}
	browserOnce.Do(func() {
		browserDir, browserErr = os.MkdirTemp("", "ptyweb-chromium-")
		if browserErr != nil {
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // root in CI containers
			chromedp.DisableGPU,
			chromedp.UserDataDir(browserDir),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.WindowSize(1000, 700),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browserCtx = ctx
		browserCancel = func() { cancelCtx(); cancelAlloc() }
		browserErr = chromedp.Do(ctx) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("start chromium: %v", browserErr)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// webServer is a running `pty web`.
type webServer struct {
	url   string // as printed, with the token
	base  string // http://host:port
	token string
	cmd   *exec.Cmd
}

// parseURL splits the printed URL, http://HOST:PORT/#TOKEN.
func parseURL(t *testing.T, u string) *webServer {
	t.Helper()
	base, tok, ok := strings.Cut(u, "/#")
	if !ok || !strings.HasPrefix(u, "http://") || tok == "" || strings.ContainsAny(base, "?#") {
		t.Fatalf("pty web printed %q, want http://HOST:PORT/#TOKEN", u)
	}
	return &webServer{url: u, base: base, token: tok}
}

// startWeb runs pty web on a free port and reads the URL it prints.
func startWeb(t *testing.T, root string, args ...string) *webServer {
	t.Helper()
	return startWebEnv(t, root, nil, args...)
}

// startWebEnv is startWeb with env added to pty web's environment.
func startWebEnv(t *testing.T, root string, env []string, args ...string) *webServer {
	t.Helper()
	cmd := testutil.Command(t, root, "web", append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("pty web did not stop on SIGINT")
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, r)
	}()
	select {
	case u := <-line:
		if !strings.HasPrefix(u, "http://") {
			t.Fatalf("pty web printed %q as its first line (stderr: %s)", u, stderr.String())
		}
		w := parseURL(t, u)
		w.cmd = cmd
		return w
	case <-time.After(30 * time.Second):
		t.Fatalf("pty web printed no URL (stderr: %s)", stderr.String())
	}
	return nil
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitJS waits until the expression is true in the page.
func waitJS(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	testutil.WaitFor(t, 15*time.Second, what, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		return err == nil && ok
	})
}

const screenText = `Array.from(document.querySelectorAll('#screen .row')).map(r => r.textContent).join('\n')`

func startSession(t *testing.T, root, name string, argv ...string) string {
	t.Helper()
	// --cleanup-on-clean-exit keeps the record of a failed session.
	r := testutil.MustRun(t, root, append([]string{"run", "-d", "--cleanup-on-clean-exit", "--name", name, "--"}, argv...)...)
	id := ""
	if _, rest, ok := strings.Cut(r.Stdout, `Session "`); ok {
		id, _, _ = strings.Cut(rest, `"`)
	}
	if id == "" {
		t.Fatalf("no session id in %q", r.Stdout)
	}
	return id
}

// TestBrowserWatch opens the printed URL, sees the sessions (and one
// started afterwards appear), opens one and watches its counter advance,
// and checks that a session printing markup shows it as text.
func TestBrowserWatch(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	counter := startSession(t, root, "counter", "sh", "-c",
		`printf '\033]0;counting sheep\007'; seq 1 100; i=0; while :; do i=$((i+1)); printf '\033[1;32mtick\033[0m %d \033[4mof\033[0m \033[7m100\033[0m\n' $i; sleep 0.2; done`)
	ended := startSession(t, root, "ended", "sh", "-c", `echo 'last words <i>'; exit 3`)
	testutil.WaitFor(t, 10*time.Second, "the session to end", func() bool {
		return strings.Contains(testutil.Run(t, root, "list").Stdout, "exit 3")
	})
	w := startWeb(t, root)

	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the list shows the counter session",
		fmt.Sprintf(`!!document.querySelector('li.session[data-id=%q]')`, counter))
	if loc := eval[string](t, ctx, `location.href`); strings.Contains(loc, w.token) || strings.Contains(loc, "#") {
		t.Errorf("the token stayed in the address bar: %s", loc)
	}
	// A session started now appears without a reload.
	hostile := startSession(t, root, "hostile", "sh", "-c",
		`printf '<script>window.pwned=1</script><img src=x onerror="window.pwned=2"> &amp; done 日本\n'; exec sleep 600`)
	waitJS(t, ctx, "the list shows a session started after the page loaded",
		fmt.Sprintf(`!!document.querySelector('li.session[data-id=%q]')`, hostile))
	if n := eval[float64](t, ctx, `performance.getEntriesByType('navigation').length`); n != 1 {
		t.Errorf("the page reloaded (%v navigations)", n)
	}

	// The counter's page: the number advances.
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+counter)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the counter's screen", `document.querySelector('#screen').textContent.includes('tick')`)
	first := lastTick(t, ctx)
	testutil.WaitFor(t, 10*time.Second, "the counter to advance on the page", func() bool { return lastTick(t, ctx) >= first+3 })
	if c := eval[string](t, ctx, `getComputedStyle(Array.from(document.querySelectorAll('#screen span')).find(s => s.textContent.startsWith('tick'))).color`); c != "rgb(0, 205, 0)" {
		t.Errorf("tick's colour is %q, want the palette's green", c)
	}

	// Its title, its events, and its scrollback when scrolled up.
	waitJS(t, ctx, "the title", `document.querySelector('#title').textContent === 'counting sheep' && document.title.includes('counting sheep')`)
	waitJS(t, ctx, "the title_change event", `document.querySelector('#events').textContent.includes('title_change')`)
	// A real wheel turn over the screen, as a user scrolls up.
	box := eval[[]float64](t, ctx, `(r => [r.x + r.width / 2, r.y + r.height / 2])(document.querySelector('#term').getBoundingClientRect())`)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, box[0], box[1],
		wheelUp)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the scrollback", `Array.from(document.querySelectorAll('#hist .row')).some(r => r.textContent === '1')`)

	// An ended session: its last lines and exit code.
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+ended)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the ended session's exit", `!document.querySelector('#ended').hidden`)
	if got := eval[string](t, ctx, `document.querySelector('#exit').textContent + '|' + document.querySelector('#last').textContent`); !strings.Contains(got, "exit 3") || !strings.Contains(got, "last words <i>") {
		t.Errorf("ended session shows %q", got)
	}

	// Markup printed by a session is text.
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+hostile)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the hostile session's screen", `document.querySelector('#screen').textContent.includes('&amp; done')`)
	txt := eval[string](t, ctx, screenText)
	if !strings.Contains(txt, `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`) {
		t.Errorf("the markup is not shown as text:\n%s", txt)
	}
	if n := eval[float64](t, ctx, `document.querySelectorAll('#screen script, #screen img, #hist img').length`); n != 0 {
		t.Errorf("session text became %v elements", n)
	}
	if n := eval[float64](t, ctx, `document.querySelectorAll('#screen span.w').length`); n < 2 {
		t.Errorf("wide characters are not laid out as such (%v wide runs)", n)
	}
	if p := eval[bool](t, ctx, `window.pwned !== undefined`); p {
		t.Errorf("session text ran script")
	}
}

// wheelUp turns the wheel away from the user. The protocol wants both
// deltas, and drops zero ones.
func wheelUp(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 0.01, -2000 }

// screenshot saves the page, scrolled to the live screen, as a PNG (for
// docs/web.md).
func screenshot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	eval[bool](t, ctx, `(t => { if (t) t.scrollTop = 1e9; return true })(document.querySelector('#term'))`)
	b, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func lastTick(t *testing.T, ctx context.Context) int {
	t.Helper()
	best := 0
	for _, l := range strings.Split(eval[string](t, ctx, screenText), "\n") {
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "tick %d", &n); err == nil && n > best {
			best = n
		}
	}
	return best
}

// TestBrowserWrite types into a --write page and sees the keys arrive,
// as `pty peek` shows them.
func TestBrowserWrite(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	id := startSession(t, root, "typing", "sh", "-c", `printf 'ready\n'; while IFS= read -r l; do printf 'got[%s]\n' "$l"; done`)
	w := startWeb(t, root, "--write")
	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the session's screen", `document.querySelector('#screen').textContent.includes('ready')`)
	waitJS(t, ctx, "write mode", `document.querySelector('#mode').textContent === 'typing enabled'`)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#term")),
		chromedp.KeyEvent("hello <web>"),
		chromedp.KeyEvent(kb.Enter),
	); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the typed line to reach the session", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, "got[hello <web>]")
	})
	waitJS(t, ctx, "the page to show the session's answer", `document.querySelector('#screen').textContent.includes('got[hello <web>]')`)

	// The buttons for keys a phone lacks.
	if err := chromedp.Do(ctx,
		chromedp.KeyEvent("a"),
		chromedp.Click(chromedp.CSS(`#keys button[data-key="Tab"]`)),
		chromedp.KeyEvent("b"),
		chromedp.Click(chromedp.CSS(`#keys button[data-key="Enter"]`)),
	); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "a Tab from the key buttons", func() bool {
		return regexp.MustCompile(`got\[a +b\]`).MatchString(testutil.Run(t, root, "peek", "--plain", id).Stdout)
	})
}

// TestBrowserCrossOrigin: a page of another site (here another port, the
// same site to the browser, so the cookie would go along) cannot open the
// live channel.
func TestBrowserCrossOrigin(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	startSession(t, root, "x", "sleep", "600")
	w := startWeb(t, root)
	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the list", `document.querySelectorAll('li.session').length === 1`)

	evil := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, `<!doctype html><script>
window.result = 'pending';
const ws = new WebSocket(%q);
ws.onmessage = (e) => { window.result = 'got: ' + e.data.slice(0, 40); };
ws.onerror = () => { if (window.result === 'pending') window.result = 'refused'; };
</script>`, "ws"+strings.TrimPrefix(w.base, "http")+"/live/list")
	})}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	go evil.Serve(ln)
	t.Cleanup(func() { evil.Close() })
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the cross-origin attempt to finish", `window.result !== 'pending'`)
	if r := eval[string](t, ctx, `window.result`); r != "refused" {
		t.Errorf("a page of another origin opened the live channel: %s", r)
	}
}
