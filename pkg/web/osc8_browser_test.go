package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// OSC 8 hyperlinks are links on the page, on the screen and in the
// scrollback: the text the program chose, its URI as href, a new tab
// without a handle on the page, and only for http, https and mailto.
func TestBrowserOSC8Links(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "osc8", "--rows", "10", "--cols", "80", "--",
		"sh", "-c", `printf 'old \033]8;;https://old.test/h\033\\in history\033]8;;\033\\ done\n'; `+
			`i=0; while [ $i -lt 12 ]; do echo filler $i; i=$((i+1)); done; `+
			`printf 'see \033]8;id=d;https://docs.test/page?x=1\033\\read \033[1mthe\033[0m docs\033]8;;\033\\ then\n'; `+
			`printf '\033]8;;javascript:alert(1)\033\\evil\033]8;;\033\\ and \033]8;;mailto:a@b.test\033\\mail me\033]8;;\033\\ end\n'; `+
			`exec sleep 600`)
	w := startWeb(t, root)
	navigate(t, ctx, w.url, w.base+"/s/osc8")
	waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('mail me')`)
	const list = `Array.from(document.querySelectorAll(%q)).map(a => a.getAttribute('href') + '|' + a.textContent + '|' + a.target + '|' + a.rel)`
	got := eval[[]string](t, ctx, strings.Replace(list, "%q", `'#screen a'`, 1))
	want := []string{
		"https://docs.test/page?x=1|read the docs|_blank|noopener noreferrer",
		"mailto:a@b.test|mail me|_blank|noopener noreferrer",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	waitJS(t, ctx, "the scrollback", `document.querySelector('#hist').textContent.includes('in history')`)
	got = eval[[]string](t, ctx, strings.Replace(list, "%q", `'#hist a'`, 1))
	if want := "https://old.test/h|in history|_blank|noopener noreferrer"; strings.Join(got, "\n") != want {
		t.Errorf("scrollback links: %q, want %q", got, want)
	}
	ch := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return strings.Contains(i.URL, "docs.test") })
	click(t, ctx, `#screen a[href="https://docs.test/page?x=1"]`)
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Errorf("clicking the hyperlink opened no tab")
	}
}
