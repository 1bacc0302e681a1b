package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
)

func TestRunServesUntilCancelled(t *testing.T) {
	root := testutil.Root(t)
	var out, errb testutil.SyncBuffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now}

	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Listen: "127.0.0.1:0", Args: []string{"x"}}, `pty: web takes no arguments, got "x" (see 'pty web --help')`},
		{Options{Listen: "localhost"}, `pty: --listen "localhost" is not HOST:PORT (like 127.0.0.1:7681, or 0.0.0.0:7681 for every interface)`},
	} {
		if err := Run(context.Background(), c.o, io); err == nil || cli.Message(err) != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Listen: "127.0.0.1:0"}, io) }()
	var url string
	testutil.WaitFor(t, 10*time.Second, "the URL on stdout", func() bool {
		url, _, _ = strings.Cut(out.String(), "\n")
		return strings.Contains(out.String(), "\n")
	})
	page, _, ok := strings.Cut(url, "#")
	if !ok || !strings.HasPrefix(page, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not the page's URL with its token", url)
	}
	resp, err := http.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", page, resp.Status)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}
