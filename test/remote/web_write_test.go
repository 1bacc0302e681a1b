package remote

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cmd/remoteserve"
)

// webServer is a pty web --remotes of the test's, against the fleet.
type webServer struct {
	cmd       *exec.Cmd
	url, base string
	token     string
}

func startRemoteWeb(t *testing.T, f *fleet, flags ...string) *webServer {
	t.Helper()
	web := exec.Command(filepath.Join(testutil.BinDir(t), "pty"), append([]string{"web", "--remotes", "--listen", "127.0.0.1:0"}, flags...)...)
	web.Env = f.env
	out, err := web.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr testutil.SyncBuffer
	web.Stderr = &stderr
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		web.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { web.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			web.Process.Kill()
		}
		if t.Failed() {
			t.Logf("pty web's stderr: %s", stderr.String())
		}
	})
	urlc := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		urlc <- strings.TrimSpace(l)
	}()
	var url string
	select {
	case url = <-urlc:
	case <-time.After(30 * time.Second):
		t.Fatalf("pty web printed no URL: %s", stderr.String())
	}
	base, token, ok := strings.Cut(url, "/#")
	if !ok {
		t.Fatalf("pty web printed %q (stderr %s)", url, stderr.String())
	}
	return &webServer{cmd: web, url: url, base: base, token: token}
}

// carriers are pty web's ssh processes whose command line has word.
func (w *webServer) carriers(word string) []int { return descendants(w.cmd.Process.Pid, "ssh", word) }

// killCarriers kills them and waits for one to be made again.
func (w *webServer) killCarriers(t *testing.T, word string) {
	t.Helper()
	old := w.carriers(word)
	if len(old) == 0 {
		t.Fatalf("no ssh process of pty web runs %q", word)
	}
	for _, p := range old {
		syscall.Kill(p, syscall.SIGKILL)
	}
	testutil.WaitFor(t, 30*time.Second, "a new ssh process for "+word, func() bool {
		for _, p := range w.carriers(word) {
			if !contains(old, p) {
				return true
			}
		}
		return false
	})
}

// typeOn types text and Enter on the session page.
func typeOn(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#term")), chromedp.KeyEvent(text), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
}

// The page's whole buffer, the scrollback and the screen, as text.
const remoteBufferText = `Array.from(document.querySelectorAll('#hist .row, #screen .row')).map(r => r.textContent)`

// With --write, a remote session's page types into the session over a
// route, shows the host's events, kills the session on the host (pty kill
// there), and keeps every line of a counter once and in order while the
// routes carrying it are killed under it: the lines printed while it was
// down are added to the page's scrollback, not put in its place. The
// session keeps fewer lines than the page (150), so a page whose
// scrollback were replaced by the host's after a reconnect would lack the
// first ones.
func TestRemoteWebWrite(t *testing.T) { testRemoteWebWrite(t, "150") }

// The same with the host's scrollback not full: the reconnect asks for
// the lines the page lacks by the count, and a few more.
func TestRemoteWebWriteCounted(t *testing.T) { testRemoteWebWrite(t, "") }

func testRemoteWebWrite(t *testing.T, scrollback string) {
	f := newFleet(t)
	// The counter waits at n200 for a file (the host is this machine),
	// not for a line typed: a line that came early would let it go on,
	// and what is typed later would be echoed into one of its lines.
	gate := filepath.Join(t.TempDir(), "go")
	run := testutil.Command(t, f.rootA, "", "run", "-d", "--id", "ctr", "--", "sh", "-c",
		`echo ready; read x; echo got-$x; i=0; while [ $i -lt 400 ]; do i=$((i+1)); echo n$i; [ $i = 200 ] && while [ ! -e `+gate+` ]; do sleep 0.05; done; sleep 0.03; done; echo END; sleep 100`)
	if scrollback != "" {
		run.Env = append(run.Env, "PTY_SCROLLBACK="+scrollback)
	}
	if r := testutil.RunCmd(t, run); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	w := startRemoteWeb(t, f, "--write")
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	// The list knows the session before its page asks for an action.
	pageTrue(t, ctx, "hosta's group", `!!document.querySelector('section[data-host="hosta"] li[data-id="ctr"]')`)
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/h/hosta/ctr")); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "the remote page, writable", `document.querySelector('#screen').textContent.includes('ready') &&
		document.querySelector('#mode').textContent === 'typing enabled' && !document.querySelector('#acts').hidden`)

	// The host's events: those logged before the page opened, and one
	// logged while it is open.
	pageTrue(t, ctx, "the session's start among the events", `document.querySelector('#events').textContent.includes('session_start')`)
	testutil.MustRun(t, f.rootA, "emit", "ctr", "user.from-host", "--text", "first")
	pageTrue(t, ctx, "an event logged on the host", `document.querySelector('#events').textContent.includes('user.from-host')`)

	typeOn(t, ctx, "go")
	testutil.WaitFor(t, 15*time.Second, "the typed line on the host", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout, "got-go")
	})
	pageTrue(t, ctx, "n40 on the page", `document.querySelector('#screen').textContent.includes('n40')`)

	// While the counter prints: the ssh processes of every route (the
	// page's, the typing's) and of the events' follow are killed.
	// Routes start pty-remote-serve --stdio; the follow of the events
	// runs pty events --json -- ctr as one encoded word (--run=).
	w.killCarriers(t, "remote-serve --stdio")
	enc, err := remoteserve.EncodeArgs([]string{"events", "--json", "--", "ctr"})
	if err != nil {
		t.Fatal(err)
	}
	w.killCarriers(t, "--run="+enc)
	testutil.MustRun(t, f.rootA, "emit", "ctr", "user.after-drop", "--text", "second")
	pageTrue(t, ctx, "n200 on the page", `document.querySelector('#screen').textContent.includes('n200')`)
	pageTrue(t, ctx, "an event logged after the drop", `document.querySelector('#events').textContent.includes('user.after-drop')`)
	// While the counter waits: hosta away for a while (its server
	// stopped, the shared connection closed, which drops the routes);
	// the page says so, and once it is back, that it is live again.
	b, err := os.ReadFile(filepath.Join(f.a.dir, "sshd.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("sshd pid: %q %v", b, err)
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	stopped := true
	defer func() {
		if stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	exit := masterExit(f.dir, "hosta")
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	pageTrue(t, ctx, "the page saying the route is down", `document.querySelector('#conn').textContent.startsWith('reconnecting to hosta')`)
	syscall.Kill(pid, syscall.SIGCONT)
	stopped = false
	pageTrue(t, ctx, "the page live again", `document.querySelector('#conn').textContent === 'live'`)

	// Then the host's end of the routes.
	old := serving(f.rootA)
	for _, p := range old {
		syscall.Kill(p, syscall.SIGKILL)
	}
	testutil.WaitFor(t, 30*time.Second, "a new remote-serve on hosta", func() bool {
		for _, p := range serving(f.rootA) {
			if !contains(old, p) {
				return true
			}
		}
		return false
	})
	// Typing over a route made again after its host's end was killed:
	// the tty echoes the line.
	typeOn(t, ctx, "more")
	testutil.WaitForState(t, 15*time.Second, "the typed line echoed on the host", func() (bool, string) {
		out := testutil.Run(t, f.rootA, "peek", "--plain", "ctr").Stdout
		return strings.Contains(out, "n200\nmore"), out
	})
	if r := testutil.Run(t, f.rootA, "peek", "--plain", "ctr"); strings.Contains(r.Stdout, "n201") {
		t.Fatalf("the counter did not wait at n200: %q", r.Stdout)
	}
	// The counter goes on while the page's route is made again.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "END on the page", `document.querySelector('#screen').textContent.includes('END')`)

	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](remoteBufferText))
	if err != nil {
		t.Fatal(err)
	}
	var ns, others []string
	for _, l := range rows {
		l = strings.TrimSpace(l)
		if len(l) > 1 && l[0] == 'n' && strings.Trim(l[1:], "0123456789") == "" {
			ns = append(ns, l)
		} else if l != "" {
			others = append(others, l)
		}
	}
	if p := testutil.CounterProblem(ns, 400); p != "" {
		t.Fatalf("the page's counter lines, n1 to n400 once each and in order: %s; its other lines: %q; the host's: %q",
			p, others, nonCounter(testutil.Run(t, f.rootA, "peek", "--plain", "--full", "ctr").Stdout))
	}

	// An action's checks are those of a local one.
	for _, c := range []struct {
		token, origin string
		want          int
	}{{"", w.base, 401}, {w.token, "http://example.com", 403}} {
		req, _ := http.NewRequest("POST", w.base+"/action", strings.NewReader(`{"op":"kill","id":"ctr","host":"hosta"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", c.origin)
		if c.token != "" {
			req.Header.Set("X-Pty-Token", c.token)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil || r.StatusCode != c.want {
			t.Fatalf("an action with token %q, origin %q: %v %v, want %d", c.token, c.origin, r, err, c.want)
		}
		r.Body.Close()
	}

	// Kill, from the page: pty kill on the host.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#kill"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirmyes"))); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "the session killed on the host", func() bool {
		r := testutil.Run(t, f.rootA, "list", "--json")
		return strings.Contains(r.Stdout, `"ctr"`) && !strings.Contains(r.Stdout, `"running"`)
	})
	pageTrue(t, ctx, "the page's end", `document.querySelector('#status').textContent === 'ended'`)

	// Restart, from the page: pty restart -y on the host, and the page,
	// reloaded, follows the session again.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#restart"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#confirmyes"))); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "the restarted session's page", `document.querySelector('#status').textContent === 'running' &&
		document.querySelector('#screen').textContent.includes('ready')`)
	testutil.WaitFor(t, 15*time.Second, "the session running on the host", func() bool {
		return strings.Contains(testutil.Run(t, f.rootA, "list", "--json").Stdout, `"running"`)
	})

	// A new session on the host, from the list's form: pty run -d there,
	// and its page.
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/")); err != nil {
		t.Fatal(err)
	}
	pageTrue(t, ctx, "the form's hosts", `Array.from(document.querySelectorAll('#newhost option')).map(o => o.value).join(',') === ',hosta,hostb'`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#new")), chromedp.SendKeys("#newcmd", "echo started-remotely in $(pwd); sleep 100"),
		chromedp.SendKeys("#newname", "from web"), chromedp.SetValue("#newhost", "hosta"), chromedp.Click(chromedp.CSS("#newstart"))); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	pageTrue(t, ctx, "the new remote session's page", `location.pathname.startsWith('/h/hosta/') &&
		document.querySelector('#screen').textContent.includes('started-remotely in `+home+`') && document.querySelector('#name').textContent === 'from web'`)
	if r := testutil.Run(t, f.rootA, "list", "--json"); !strings.Contains(r.Stdout, `"from web"`) {
		t.Fatalf("the host's list lacks the new session: %s", r.Stdout)
	}
}

// nonCounter are the lines of out that are not a counter's.
func nonCounter(out string) []string {
	var o []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !(len(l) > 1 && l[0] == 'n' && strings.Trim(l[1:], "0123456789") == "") {
			o = append(o, l)
		}
	}
	return o
}
