package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/web"
)

// With --write a session's page kills and restarts it, each after a
// confirmation, and the list's form starts a session, as pty kill, pty
// restart and pty run -d do.
func TestBrowserActions(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	id := startSession(t, root, "victim", "sh", "-c", `echo "run-$$-"; exec sleep 600`)
	w := startWeb(t, root, "--write")
	navigate(t, ctx, w.url, w.base+"/s/"+id)
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('run-')`)
	first := runMark.FindString(eval[string](t, ctx, screenText))

	// Asked first; Cancel leaves it running.
	click(t, ctx, "#kill")
	waitJS(t, ctx, "the confirmation", `!document.querySelector('#confirm').hidden && document.querySelector('#confirmtext').textContent.includes('Kill session victim?')`)
	click(t, ctx, "#confirmno")
	waitJS(t, ctx, "the confirmation to go", `document.querySelector('#confirm').hidden`)
	if l := listOut(t, root); !strings.Contains(l, "victim") || strings.Contains(l, "killed") {
		t.Fatalf("after Cancel:\n%s", l)
	}
	click(t, ctx, "#kill")
	waitJS(t, ctx, "the confirmation", `!document.querySelector('#confirm').hidden`)
	click(t, ctx, "#confirmyes")
	waitJS(t, ctx, "pty kill's message", `document.querySelector('#notice').textContent.includes('killed')`)
	waitJS(t, ctx, "the page to show the end", `document.querySelector('#exit').textContent.includes('killed (SIGHUP)')`)
	if l := listOut(t, root); !strings.Contains(l, "killed (SIGHUP)") {
		t.Fatalf("after Kill:\n%s", l)
	}

	click(t, ctx, "#restart")
	waitJS(t, ctx, "the confirmation", `document.querySelector('#confirmyes').textContent === 'Restart'`)
	click(t, ctx, "#confirmyes")
	testutil.WaitFor(t, 20*time.Second, "a new run on the page", func() bool {
		m, err := chromedp.Run(ctx, chromedp.Evaluate[string](screenText))
		m = runMark.FindString(m)
		return err == nil && m != "" && m != first
	})
	if l := listOut(t, root); !strings.Contains(l, "up ") {
		t.Errorf("after Restart:\n%s", l)
	}

	// A new session from the list's form.
	navigate(t, ctx, w.base+"/")
	waitJS(t, ctx, "the new-session button", `!document.querySelector('#new').hidden`)
	click(t, ctx, "#new")
	dir := t.TempDir()
	if err := chromedp.Do(ctx, chromedp.SendKeys("#newcmd", `echo "hello from $(pwd)"; exec cat`),
		chromedp.SendKeys("#newname", "from web"), chromedp.SendKeys("#newcwd", dir)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#newstart")
	waitJS(t, ctx, "the new session's page", `location.pathname.startsWith('/s/') && document.querySelector('#screen').textContent.includes('hello from ')`)
	if got := eval[string](t, ctx, screenText); !strings.Contains(got, "hello from "+dir) {
		t.Errorf("the new session's screen:\n%s", got)
	}
	if l := listOut(t, root); !strings.Contains(l, "from web") {
		t.Errorf("pty list lacks the new session:\n%s", l)
	}
	// A bad directory is refused with the reason, and nothing starts.
	navigate(t, ctx, w.base+"/")
	click(t, ctx, "#new")
	if err := chromedp.Do(ctx, chromedp.SendKeys("#newcmd", "true"), chromedp.SendKeys("#newcwd", "relative/dir")); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, "#newstart")
	waitJS(t, ctx, "the refusal", `document.querySelector('#newerror').textContent.includes('not an absolute path')`)

	// Without --write there are no buttons.
	ro := startWeb(t, root)
	navigate(t, ctx, ro.url, ro.base+"/s/"+id)
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('run-')`)
	if eval[bool](t, ctx, `!document.querySelector('#acts').hidden`) {
		t.Errorf("a read-only page shows kill and restart")
	}
	navigate(t, ctx, ro.base+"/")
	waitJS(t, ctx, "the list", `document.querySelectorAll('li.session').length > 0`)
	if eval[bool](t, ctx, `!document.querySelector('#new').hidden`) {
		t.Errorf("a read-only list offers a new session")
	}
}

// A page of another origin cannot take an action, by form or by script,
// and neither can a request without the token or the JSON body.
func TestActionsRefused(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	id := startSession(t, root, "target", "sleep", "600")
	w := startWeb(t, root, "--write")
	post := func(hdr map[string]string, body string) (int, string) {
		req, _ := http.NewRequest("POST", w.base+"/action", strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]string
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m["error"]
	}
	kill := fmt.Sprintf(`{"op":"kill","id":%q}`, id)
	good := map[string]string{"Content-Type": "application/json", web.TokenHeader: w.token, "Origin": w.base}
	with := func(k, v string) map[string]string {
		h := map[string]string{}
		for a, b := range good {
			h[a] = b
		}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	for _, tc := range []struct {
		what string
		hdr  map[string]string
		body string
		code int
	}{
		{"no token", with(web.TokenHeader, ""), kill, 401},
		{"a wrong token", with(web.TokenHeader, w.token+"x"), kill, 401},
		{"another origin", with("Origin", "http://evil.example"), kill, 403},
		{"a form's body", with("Content-Type", "application/x-www-form-urlencoded"), kill, 415},
		{"a text body", with("Content-Type", "text/plain"), kill, 415},
		{"a body too large", good, `{"op":"start","command":"` + strings.Repeat("x", web.MaxActionBody) + `"}`, 400},
		{"a command too long", good, `{"op":"start","command":"` + strings.Repeat("x", web.MaxCommandLine+1) + `"}`, 400},
		{"a command of two lines", good, `{"op":"start","command":"true\nrm -rf /"}`, 400},
		{"an unknown id", good, `{"op":"kill","id":"nosuch"}`, 404},
		{"an invalid id", good, `{"op":"kill","id":"../x"}`, 400},
		{"an unknown op", good, `{"op":"rm","id":"` + id + `"}`, 400},
	} {
		if code, msg := post(tc.hdr, tc.body); code != tc.code || msg == "" {
			t.Errorf("%s: %d %q, want %d and a reason", tc.what, code, msg, tc.code)
		}
	}
	// The same without --write.
	ro := startWeb(t, root)
	req, _ := http.NewRequest("POST", ro.base+"/action", strings.NewReader(kill))
	for k, v := range good {
		req.Header.Set(k, v)
	}
	req.Header.Set(web.TokenHeader, ro.token)
	req.Header.Set("Origin", ro.base)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("an action without --write: %v %v, want 403", resp, err)
	}

	// Another origin's page, after the user used pty web in this browser:
	// a form posted at the action, and a script's fetch.
	navigate(t, ctx, w.url)
	waitJS(t, ctx, "the list", `document.querySelectorAll('li.session').length === 1`)
	evil := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(rw, `<!doctype html><form id=f method=post action=%q enctype=text/plain><input name='{"op":"kill","id":%q,"x":"' value='"}'></form>
<script>
window.result = 'pending';
fetch(%q, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Pty-Token': 'guess'}, body: %q})
  .then(r => { window.result = 'answered ' + r.status; }, () => { window.result = 'refused'; });
</script>`, w.base+"/action", id, w.base+"/action", kill)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go evil.Serve(ln)
	t.Cleanup(func() { evil.Close() })
	navigate(t, ctx, "http://"+ln.Addr().String()+"/")
	waitJS(t, ctx, "the cross-origin fetch to finish", `window.result !== 'pending'`)
	if r := eval[string](t, ctx, `window.result`); r != "refused" {
		t.Errorf("a page of another origin reached the action: %s", r)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("f").submit(), true`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the form's answer", `location.pathname === '/action'`)
	if body := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(body, "401") && !strings.Contains(body, "415") {
		t.Errorf("the cross-origin form got %q", body)
	}
	if l := listOut(t, root); strings.Contains(l, "killed") || !strings.Contains(l, "target") {
		t.Errorf("an action from another origin took effect:\n%s", l)
	}
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	// Bounded: a click waits for its element to be visible.
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}
