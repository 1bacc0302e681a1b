package web_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// A display name or tag holding bidi controls or zero-width characters,
// written by another tool (pty refuses them), shows escaped on the page,
// in the list and on the session's own page.
func TestBrowserEscapesInvisibleCharacters(t *testing.T) {
	ctx := tab(t)
	root := testutil.Root(t)
	id := startSession(t, root, "plainname", "sleep", "600")
	p := filepath.Join(root, id+".json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"plainname"`, `"exe.\u202etxt\u200b"`, 1)
	s = strings.Replace(s, `"tags": {`, `"tags": {"k": "\ufeffv",`, 1)
	if !strings.Contains(s, `\ufeffv`) {
		s = strings.Replace(s, "{", `{"tags": {"k": "\ufeffv"},`, 1)
	}
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWeb(t, root)
	if err := chromedp.Do(ctx, chromedp.Navigate(w.url)); err != nil {
		t.Fatal(err)
	}
	sel := fmt.Sprintf(`document.querySelector('li.session[data-id=%q]')`, id)
	waitJS(t, ctx, "the list shows the session", "!!"+sel)
	text := eval[string](t, ctx, sel+".textContent")
	for _, want := range []string{`exe.\u202etxt\u200b`, `\ufeffv`} {
		if !strings.Contains(text, want) {
			t.Errorf("the list's row lacks %s: %q", want, text)
		}
	}
	if strings.ContainsAny(text, "\u202e\u200b\ufeff") {
		t.Errorf("the list's row shows an invisible character raw: %q", text)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(w.base+"/s/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the session's page names it", `document.body.textContent.includes('exe.\\u202etxt')`)
	if body := eval[string](t, ctx, `document.body.textContent`); strings.ContainsAny(body, "\u202e\u200b") {
		t.Errorf("the session's page shows an invisible character raw: %q", body)
	}
}
