package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// The list and a session's page, at a desktop's width and a phone's:
// neither runs off the window's right edge. With PTY_UPDATE_SCREENSHOTS=1
// the test also writes the screenshots docs/web.md shows.
func TestBrowserScreenshots(t *testing.T) {
	root := testutil.Root(t)
	// Small scripts, so the list shows short commands.
	// The server's home is theirs: the list shows ~/src/store.
	home := t.TempDir()
	dir := filepath.Join(home, "src", "store")
	scripts := map[string]string{
		"build": `echo 'compiling ./cmd/store'; echo 'store.go:42: undefined: Flush'; exit 2`,
		"agent": `echo 'Edited 3 files.'; echo 'Run the tests now? [y/N]'; exec sleep 600`,
		"test": `printf '\033]0;go test ./...\007'; i=0; while [ $i -lt 60 ]; do i=$((i+1)); printf '\033[32mok\033[0m  \tstore/pkg%d\t0.%03ds\n' $i $i; done; ` +
			`printf '\033[31mFAIL\033[0m\tstore/flush\t0.120s  see https://example.com/ci/1234\n'; printf '\033[1mdone\033[0m, 1 failure\n'; exec sleep 600`,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range [][]string{
		{"--id", "build", "--cleanup-on-clean-exit", "--", "./build"},
		{"--id", "agent", "--name", "agent: refactor", "--", "./agent"},
		{"--id", "tests", "--name", "tests", "--rows", "24", "--cols", "80", "--tag", "project=store", "--", "./test"},
	} {
		testutil.MustRun(t, root, append([]string{"run", "-d", "--cwd", dir}, s...)...)
	}
	testutil.WaitFor(t, 10*time.Second, "the build to fail", func() bool { return strings.Contains(listOut(t, root), "exit 2") })
	w := startWebEnv(t, root, []string{"HOME=" + home}, "--write")
	update := os.Getenv("PTY_UPDATE_SCREENSHOTS") == "1"
	for _, sz := range []struct {
		suffix string
		w, h   int64
		mobile bool
	}{{"", 1100, 640, false}, {"-phone", 390, 844, true}} {
		ctx := sizedTab(t, sz.w, sz.h, sz.mobile)
		navigate(t, ctx, w.url)
		waitJS(t, ctx, "the previews", `document.querySelectorAll('li.session .preview').length === 2`)
		fits(t, ctx, "the list"+sz.suffix)
		if update {
			shoot(t, ctx, "web-list"+sz.suffix+".png")
		}
		navigate(t, ctx, w.base+"/s/tests")
		waitJS(t, ctx, "the screen", `document.querySelector('#screen').textContent.includes('done, 1 failure')`)
		fits(t, ctx, "the session's page"+sz.suffix)
		if update {
			shoot(t, ctx, "web-session"+sz.suffix+".png")
		}
	}
}

// fits checks that the page does not run off the window's right edge.
func fits(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if got := eval[[]float64](t, ctx, `[document.scrollingElement.scrollWidth, window.innerWidth]`); got[0] > got[1] {
		t.Errorf("%s is %v px wide in a window of %v px", what, got[0], got[1])
	}
}

func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	screenshot(t, ctx, filepath.Join("..", "..", "docs", name))
}
