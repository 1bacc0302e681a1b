package emit

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

func TestRunAppendsAUserEvent(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "e", "--", "sleep", "100")
	var out, errb bytes.Buffer
	io := cli.IO{Out: &out, Err: &errb, Root: root, Now: time.Now, Session: "e"}
	js, text := `{"pct": 40}`, "v1.4.2"

	if err := Run(Options{JSON: &js, Args: []string{"user.progress"}}, io); err != nil {
		t.Fatal(err)
	}
	io.Session = ""
	if err := Run(Options{Text: &text, Args: []string{"e", "user.deployed"}}, io); err != nil {
		t.Fatal(err)
	}
	if out.Len()+errb.Len() != 0 {
		t.Errorf("emit printed %q %q", out.String(), errb.String())
	}
	evs, err := layout.At(root).Events("e")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		if len(e.Type) > 5 && e.Type[:5] == "user." {
			got = append(got, fmt.Sprint(e.Type, " ", e.Fields["data"], " ", e.Fields["text"]))
		}
	}
	if len(got) != 2 || got[0] != "user.progress map[pct:40] <nil>" || got[1] != "user.deployed <nil> v1.4.2" {
		t.Fatalf("user events: %q", got)
	}
	bad := "{"
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Args: []string{"e", "progress"}}, ""},
		{Options{JSON: &bad, Args: []string{"e", "user.x"}}, ""},
		{Options{Args: []string{"user.x"}}, "pty: no session given and not inside a pty session ($PTY_SESSION is unset): pty emit REF user.NAME"},
		{Options{}, "pty: no event type given: pty emit [REF] user.NAME [--json JSON] [--text TEXT]"},
	} {
		err := Run(c.o, io)
		if err == nil || c.want != "" && cli.Message(err) != c.want {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if evs2, _ := layout.At(root).Events("e"); len(evs2) != len(evs) {
		t.Errorf("refused emits appended %d events", len(evs2)-len(evs))
	}
}
