package compat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// Our send asks the daemon for the session's key modes before an arrow;
// the original's STATUS has no such fields (and its daemon sends command
// connections live output as well), so against it send types the normal
// modes' bytes, and still completes.
func TestOurSendOfModalKeysOnUpstreamDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	out := filepath.Join(root, "keys.capture")
	up.start(t, root, "upk", "--", "sh", "-c", `stty raw -echo && printf '\033[?1hready' && exec cat >> `+out)
	testutil.WaitFor(t, 20*time.Second, "the capture file", func() bool {
		_, err := os.Stat(out)
		return err == nil
	})
	oursMust(t, root, "send", "upk", "--with-delay", "0", "--seq", "a", "--seq", "key:down", "--seq", "key:kp5", "--seq", "b")
	want := "a\x1b[B5b"
	var got []byte
	testutil.WaitFor(t, 10*time.Second, "the keys in the capture file", func() bool {
		got, _ = os.ReadFile(out)
		return len(got) >= len(want)
	})
	if string(got) != want {
		t.Errorf("the upstream session received %q, want %q", got, want)
	}
}

// Our attach with a detach key of one's own on the original's daemon,
// which ignores ATTACH_TTY_KEY: the client relays and applies the key
// itself.
func TestOurDetachKeyOnUpstreamDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	up.start(t, root, "upd", "--", "sh", "-c", "stty raw -echo; echo ready; exec cat -v")
	tm := testutil.StartTmux(t, root, 24, 80, "pty attach --detach-key ctrl+a upd; echo attach-exit=$?")
	tm.WaitText("ready")
	tm.Keys("a", `C-\`, "b")
	tm.WaitText(`a^\b`)
	tm.Keys("C-a")
	tm.WaitText("[detached]")
	tm.WaitText("attach-exit=0")
	if r := oursMust(t, root, "peek", "--plain", "upd"); !strings.Contains(r.Stdout, `a^\b`) {
		t.Errorf("after detaching, the upstream session shows %q", r.Stdout)
	}
}
