package peek

import (
	"bytes"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/commands"
	"github.com/ptyorg/pty/pkg/layout"
)

// The dispatcher starts pty-peek on one processor
// (commands.OneProcEnviron): printing a screen runs with GOMAXPROCS=1,
// the whole command that pty-peek hands other command lines to gets the
// environment as it was, and a GOMAXPROCS the user chose is left alone.
func TestPeekStartsOnOneProcessor(t *testing.T) {
	root := testutil.Root(t)
	// A socket that takes the connection and never answers: the print
	// waits for its screen, so its environment can be read meanwhile.
	defer silentOn(t, layout.At(root).Paths("quiet").Sock()).Close()
	env := environOf(t, root, nil, "pty-peek", "peek", "--plain", "quiet")
	if !slices.Contains(env, "GOMAXPROCS=1") || !slices.Contains(env, commands.OneProcEnv+"=1") {
		t.Errorf("pty peek --plain runs without GOMAXPROCS=1 and its mark: %q", gomaxprocs(env))
	}
	env = environOf(t, root, []string{"GOMAXPROCS=3"}, "pty-peek", "peek", "--plain", "quiet")
	if got := gomaxprocs(env); !slices.Equal(got, []string{"GOMAXPROCS=3"}) {
		t.Errorf("with the user's GOMAXPROCS=3, pty-peek has %q", got)
	}

	testutil.MustRun(t, root, "run", "-d", "--id", "f", "--", "sleep", "60")
	env = environOf(t, root, nil, "pty-peek-full", "peek", "-f", "f")
	if got := gomaxprocs(env); len(got) != 0 {
		t.Errorf("pty peek -f (pty-peek-full) inherited %q from the one-processor start", got)
	}
	env = environOf(t, root, []string{"GOMAXPROCS=3"}, "pty-peek-full", "peek", "-f", "f")
	if got := gomaxprocs(env); !slices.Equal(got, []string{"GOMAXPROCS=3"}) {
		t.Errorf("with the user's GOMAXPROCS=3, pty-peek-full has %q", got)
	}
}

// environOf starts "pty args..." with extra in its environment (and no
// GOMAXPROCS of the test's own), waits until the process runs the
// program prog, and returns that program's environment.
func environOf(t *testing.T, root string, extra []string, prog string, args ...string) []string {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Env = append(slices.DeleteFunc(cmd.Env, procSetting), extra...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	proc := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/"
	// An exec names the process before it sets up the new program's
	// environment: until PTY_ROOT is in it, it is not read yet.
	var env []string
	testutil.WaitFor(t, 10*time.Second, prog+" running", func() bool {
		b, _ := os.ReadFile(proc + "comm")
		if strings.TrimSpace(string(b)) != prog {
			return false
		}
		b, _ = os.ReadFile(proc + "environ")
		env = strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		return slices.Contains(env, "PTY_ROOT="+root)
	})
	return env
}

// gomaxprocs is what of env concerns the processors a Go program uses.
func gomaxprocs(env []string) []string {
	var out []string
	for _, kv := range env {
		if procSetting(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// procSetting reports whether kv sets GOMAXPROCS or the dispatcher's mark.
func procSetting(kv string) bool {
	return strings.HasPrefix(kv, "GOMAXPROCS=") || strings.HasPrefix(kv, commands.OneProcEnv+"=")
}

// silentOn puts a listener in place of the socket at sock that takes each
// connection and holds it, unanswered, until the test ends.
func silentOn(t *testing.T, sock string) net.Listener {
	t.Helper()
	var mu sync.Mutex
	var held []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return serveOn(t, sock, func(c net.Conn) {
		mu.Lock()
		held = append(held, c)
		mu.Unlock()
	})
}
