package remote

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// The picker lists the hosts of remotes.toml under this host's sessions,
// each in its own group, as they answer: a host that never answers
// delays neither this host's list nor the others', a host that is down
// shows its error, the filter reaches every host's sessions, and Enter
// attaches to one over pty --remote HOST attach, detaching back to the
// picker.
func TestRemotePicker(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.local, "run", "-d", "--id", "lochere", "--", "sleep", "100")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "onaaa", "--", "sleep", "100")
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "onbbb", "--", "sh", "-c", "echo b-side-marker; while read x; do echo typed-$x; done")
	// hang accepts and never speaks; down refuses.
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hang.Close() })
	held := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() {
		for {
			select {
			case c := <-held:
				c.Close()
			default:
				return
			}
		}
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	f.write(t, "pty/remotes.toml", "[hang]\nssh = \"ssh://127.0.0.1:"+strconv.Itoa(hang.Addr().(*net.TCPAddr).Port)+"\"\n"+
		"[hosta]\nssh = \"hosta\"\n[down]\nssh = \"ssh://127.0.0.1:"+strconv.Itoa(down)+"\"\n[hostb]\nssh = \"hostb\"\n")

	tm := testutil.StartUserTmuxCmd(t, 30, 110, f.env, filepath.Join(testutil.BinDir(t), "pty"))
	// Everything but hang has answered while hang is still being asked.
	tm.WaitScreen("this host's and the answering hosts' sessions while hang is asked", func(s string) bool {
		return strings.Contains(s, "lochere") && strings.Contains(s, "hang (asking...)") &&
			strings.Contains(s, "hosta (1 session)") && strings.Contains(s, "onaaa") &&
			strings.Contains(s, "hostb (1 session)") && strings.Contains(s, "onbbb") &&
			strings.Contains(s, "down (error: down is unreachable")
	})
	scr := tm.Screen()
	if !(strings.Index(scr, "lochere") < strings.Index(scr, "hang (") && strings.Index(scr, "hosta (") < strings.Index(scr, "onaaa") &&
		strings.Index(scr, "onaaa") < strings.Index(scr, "down (") && strings.Index(scr, "hostb (") < strings.Index(scr, "onbbb")) {
		t.Fatalf("groups out of order:\n%s", scr)
	}
	tm.Keys("onbb")
	tm.WaitScreen("the filter down to onbbb", func(s string) bool {
		return strings.Contains(s, "onbbb") && strings.Contains(s, "1 of 3 sessions") && !strings.Contains(s, "onaaa") && !strings.Contains(s, "lochere")
	})
	tm.Keys("Enter")
	tm.WaitText("b-side-marker")
	tm.Keys("hi", "Enter")
	tm.WaitText("typed-hi")
	testutil.WaitFor(t, 15*time.Second, "typed-hi on hostb", func() bool {
		return strings.Contains(testutil.Run(t, f.rootB, "peek", "--plain", "onbbb").Stdout, "typed-hi")
	})
	tm.Keys("C-\\")
	tm.WaitText("Detached from hostb:onbbb")
}
