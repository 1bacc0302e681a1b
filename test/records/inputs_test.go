package records

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// Timeouts too large for a time.Duration wrapped around to a negative
// deadline (events gave up at once); NaN passed as a timeout. Durations
// are now read by internal/duration, which refuses NaN, Inf, 1e300 and
// anything past 100 years; the longest it takes must still wait.
func TestHugeAndNaNTimeouts(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	oneLineError(t, "peek -t NaN", testutil.Run(t, root, "peek", "-t", "NaN", "--wait", "x", "s"), `"NaN" is not valid`)
	oneLineError(t, "peek -t Inf", testutil.Run(t, root, "peek", "-t", "Inf", "--wait", "x", "s"), `"Inf" is not valid`)
	oneLineError(t, "events -t 1e300", testutil.Run(t, root, "events", "s", "--wait", "user.go", "-t", "1e300"), `"1e300" is not valid`)

	cmd := testutil.Command(t, root, "events", "s", "--wait", "user.go", "-t", "36500d")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Emit until the follower has seen one (it starts at the end of the log).
	deadline := time.After(20 * time.Second)
	for {
		select {
		case err := <-done:
			if err != nil || !strings.Contains(out.String(), "user.go") {
				t.Fatalf("events --wait -t 36500d: %v, stdout %q, stderr %q", err, out.String(), errb.String())
			}
			return
		case <-deadline:
			cmd.Process.Kill()
			t.Fatal("events --wait never saw the event")
		case <-time.After(200 * time.Millisecond):
			testutil.MustRun(t, root, "emit", "s", "user.go")
		}
	}
}

// A command's arguments are stored as typed; printed raw by list, an
// escape sequence among them drove the reader's terminal.
func TestListShowsControlCharactersEscaped(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "e", "--tag", "keep=1", "--", "sh", "-c", "sleep 100", "x\x1b]2;owned\x07")
	r := testutil.MustRun(t, root, "list")
	if strings.ContainsAny(r.Stdout, "\x1b\x07") || !strings.Contains(r.Stdout, `x\x1b]2;owned\a`) {
		t.Fatalf("list prints %q", r.Stdout)
	}
}
