package list

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ptyorg/pty/internal/testutil"
)

// listOnTerminal runs `pty list` with stdout on a real terminal.
func listOnTerminal(t *testing.T, root string, env ...string) string {
	t.Helper()
	cmd := testutil.Command(t, root, "", "list")
	cmd.Env = append(cmd.Env, env...)
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out bytes.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&out, tty); close(read) }() // ends with EIO once list exits
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("pty list on a terminal: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pty list on a terminal did not finish")
	}
	<-read
	return out.String()
}

func TestListColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "c1", "--", "sleep", "1000")
	if out := listOnTerminal(t, root); !strings.Contains(out, "\x1b[") || !strings.Contains(out, "c1") {
		t.Errorf("no colour on a terminal: %q", out)
	}
	if out := listOnTerminal(t, root, "NO_COLOR=1"); strings.Contains(out, "\x1b[") || !strings.Contains(out, "c1") {
		t.Errorf("colour despite NO_COLOR: %q", out)
	}
}
