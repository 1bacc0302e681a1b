package attach

import (
	"bytes"
	"context"
	"errors"
	iopkg "io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// testIO runs Run in this process against root, with the built pty-daemon
// on PATH (a restart finds it there) and input from a file with the given
// text.
func testIO(t *testing.T, root, input string) (cli.IO, *bytes.Buffer) {
	t.Helper()
	t.Setenv("PATH", testutil.BinDir(t)+":"+os.Getenv("PATH"))
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(input)
	f.Seek(0, 0)
	t.Cleanup(func() { f.Close() })
	var out bytes.Buffer
	return cli.IO{In: f, Out: &out, Err: &out, Root: root, Env: testutil.Env(t, root), Now: time.Now}, &out
}

// ended starts a kept session and waits until it has exited with code 2.
func ended(t *testing.T, root, id string) {
	t.Helper()
	cmd := testutil.Command(t, root, "", "run", "-d", "--id", id, "--", "sh", "-c", "echo started-once; read x; exit 2")
	cmd.Env = append(cmd.Env, "PTY_REAP_ON_EXIT=false")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatal(r)
	}
	if err := client.Send(root, id, []byte("\r")); err != nil {
		t.Fatal(err)
	}
	// Ended, and past the grace period in which its daemon still answers
	// (an attach then shows the end, not the restart prompt).
	testutil.WaitFor(t, 10*time.Second, id+" to end", func() bool {
		s, err := layout.At(root).Load(id)
		_, serr := os.Stat(layout.At(root).Paths(id).Sock())
		return err == nil && s.Status == layout.Exited && os.IsNotExist(serr)
	})
}

func TestRefusals(t *testing.T) {
	ctrlA, err := detachkey.Parse("ctrl+a")
	if err != nil {
		t.Fatal(err)
	}
	root := testutil.Root(t)
	io, _ := testIO(t, root, "")
	ended(t, root, "dead")
	nested := io
	nested.Env = append(append([]string{}, io.Env...), "PTY_SESSION=outer")
	for _, c := range []struct {
		o    Options
		io   cli.IO
		want string
	}{
		{Options{Args: []string{"dead"}, Restart: true, NoRestart: true}, io, "contradict"},
		{Options{}, io, "attach takes one session reference"},
		{Options{Args: []string{"a", "b"}}, io, "attach takes one session reference"},
		{Options{Args: []string{"dead"}}, nested, `already inside pty session "outer": attaching here would nest sessions. Detach first with Ctrl+\, or pass --force`},
		{Options{Args: []string{"dead"}, DetachKey: func(func(string) string) (detachkey.Key, error) { return ctrlA, nil }}, nested, "Detach first with Ctrl+A, or pass --force"},
		{Options{Args: []string{"dead"}, DetachKey: func(func(string) string) (detachkey.Key, error) { return detachkey.None, nil }}, nested, "Detach first, or pass --force"},
		{Options{Args: []string{"nosuch"}}, io, "nosuch"},
		{Options{Args: []string{"dead"}, NoRestart: true}, io, `Session "dead" is not running (status: exited).`},
	} {
		err := Run(context.Background(), c.o, c.io)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
}

func TestPromptNoLeavesItEnded(t *testing.T) {
	root := testutil.Root(t)
	ended(t, root, "dead")
	for _, answer := range []string{"n\n", ""} {
		io, out := testIO(t, root, answer)
		if err := Run(context.Background(), Options{Args: []string{"dead"}}, io); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"started-once", `Session "dead" exited with code 2`, "Command was: sh -c echo started-once; read x; exit 2", "Restart? [Y/n]"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("answer %q: output %q lacks %q", answer, out, want)
			}
		}
		if s, _ := layout.At(root).Load("dead"); s.Status != layout.Exited {
			t.Errorf("answer %q restarted it: %s", answer, s.Status)
		}
	}
}

func TestYesRestartsAndAttaches(t *testing.T) {
	root := testutil.Root(t)
	ended(t, root, "dead")
	before, _ := layout.At(root).Metadata("dead")
	io, out := testIO(t, root, "")
	// A terminal, as attach needs: the answer is typed into it, and so
	// is the line the attached client forwards below.
	w, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer tty.Close()
	go iopkg.Copy(iopkg.Discard, w) // the terminal's echo
	io.In = tty
	w.WriteString("y\n")
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), Options{Args: []string{"dead"}}, io) }()
	testutil.WaitFor(t, 15*time.Second, "the restarted session to run", func() bool {
		s, err := layout.At(root).Load("dead")
		return err == nil && s.Status == layout.Running && s.Meta.Generation != before.Generation
	})
	// The attached client forwards this line: the session reads it and
	// exits 2 again.
	testutil.WaitFor(t, 15*time.Second, "the session to exit through the attached client", func() bool {
		w.WriteString("\r")
		select {
		case err = <-done:
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	})
	var ee cli.ExitCode
	if !errors.As(err, &ee) || ee != 2 {
		t.Fatalf("attach after a restart: %v; output %q", err, out)
	}
}

func TestCommandFillsOptions(t *testing.T) {
	var o Options
	c := Command(&o)
	pos, err := c.ParseArgs([]string{"web", "-r", "--force", "--detach-key", "ctrl+a"})
	key, kerr := o.DetachKey.Key(func(string) string { return "" })
	if err != nil || len(pos) != 1 || pos[0] != "web" || !o.Restart || o.NoRestart || !o.Force || kerr != nil || key.Spec() != "ctrl+a" {
		t.Fatalf("parsed %q %v into %+v", pos, err, o)
	}
}
