package switchtest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// keySink starts session id reading its terminal raw into a file, which
// it returns: every key that reaches the session, in order.
func keySink(t *testing.T, root, id string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), id+".keys")
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", `stty raw -echo && echo `+id+`-ready && exec cat > "$0"`, file)
	testutil.WaitFor(t, 10*time.Second, id+" to read its keys", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, id+"-ready")
	})
	return file
}

// Keys typed without a pause while a relaying client is switched each
// reach exactly one session, in order: the old one up to a point, the new
// one from there on. None is lost in the hand-over, and none reaches the
// old session after the new one has had one.
func TestSwitchRelayingClientTypingThrough(t *testing.T) {
	root := testutil.Root(t)
	for round := 0; round < 3; round++ {
		from, to := "ka"+strconv.Itoa(round), "kb"+strconv.Itoa(round)
		fromKeys, toKeys := keySink(t, root, from), keySink(t, root, to)
		pty := filepath.Join(testutil.BinDir(t), "pty")
		u := testutil.StartUserTmuxCmd(t, 24, 80, []string{"PTY_ROOT=" + root}, "sh", "-c", `"$0" attach "$1" | cat`, pty, from)
		u.WaitText(from + "-ready")
		attached(t, root, from, 1)

		typed := make(chan string)
		stop := make(chan struct{})
		go func() {
			var all strings.Builder
			defer func() { typed <- all.String() }()
			for i := 1; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tok := strconv.Itoa(i) + ","
				u.Run("send-keys", "-t", "u", "-l", tok)
				all.WriteString(tok)
			}
		}()
		// Some keys before the switch, and some after it completed.
		testutil.WaitFor(t, 10*time.Second, "keys to reach "+from, func() bool {
			b, _ := os.ReadFile(fromKeys)
			return len(b) > 20
		})
		sw := testutil.Command(t, root, "", "switch", to)
		sw.Env = append(sw.Env, "PTY_SESSION="+from)
		if r := testutil.RunCmd(t, sw); r.Code != 0 {
			t.Fatalf("pty switch %s: %+v", to, r)
		}
		attached(t, root, to, 1)
		testutil.WaitFor(t, 10*time.Second, "keys to reach "+to, func() bool {
			b, _ := os.ReadFile(toKeys)
			return len(b) > 20
		})
		close(stop)
		all := <-typed
		var a, b []byte
		testutil.WaitForState(t, 10*time.Second, "every key typed to reach one of the sessions", func() (bool, string) {
			a, _ = os.ReadFile(fromKeys)
			b, _ = os.ReadFile(toKeys)
			return len(a)+len(b) >= len(all), "the sessions have " + strconv.Itoa(len(a)+len(b)) + " of " + strconv.Itoa(len(all)) + " bytes"
		})
		if got := string(a) + string(b); got != all {
			t.Fatalf("round %d: the keys typed through the switch, want each in exactly one session, the old one's then the new one's:\ntyped:  %s\n%s: %s\n%s: %s", round, all, from, a, to, b)
		}
		u.Keys(`C-\`)
		u.WaitText("[detached]")
	}
}
