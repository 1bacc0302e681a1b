package switchtest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
)

// stats is what "pty stats --json ID" says of the session's clients and
// process.
type stats struct {
	Clients struct{ Attached int }
	Process struct{ Alive bool }
}

func status(t *testing.T, root, id string) stats {
	t.Helper()
	var st stats
	r := testutil.MustRun(t, root, "stats", "--json", id)
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		t.Fatalf("pty stats --json %s: %v\n%s", id, err, r.Stdout)
	}
	return st
}

// start runs a shell session id, named "ID-name", that first prints n
// lines "ID-line I".
func start(t *testing.T, root, id string, n int) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--name", id+"-name", "--", "sh", "-c",
		fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo %s-line-$i; i=$((i+1)); done; PS1='%s$ ' exec sh`, n, id, id))
	testutil.WaitFor(t, 10*time.Second, id+"'s prompt", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, id+"$")
	})
}

// attachIn is a tmux pane whose title the user set to "user-title",
// running "pty attach ID" with env added, once it shows id's prompt.
func attachIn(t *testing.T, root string, env []string, id string) *testutil.Tmux {
	t.Helper()
	pty := filepath.Join(testutil.BinDir(t), "pty")
	line := `printf '\033]2;user-title\007'; exec "$0" attach "$1"`
	u := testutil.StartUserTmuxCmd(t, 24, 80, append([]string{"PTY_ROOT=" + root}, env...), "sh", "-c", line, pty, id)
	u.WaitText(id + "$")
	return u
}

func title(u *testutil.Tmux) string {
	return strings.TrimSpace(u.Run("display-message", "-p", "-t", "u", "#{pane_title}"))
}

func waitTitle(t *testing.T, u *testutil.Tmux, want string) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, "the title "+want, func() (bool, string) {
		got := title(u)
		return got == want, "the title is " + got
	})
}

func attached(t *testing.T, root, id string, n int) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("%d client(s) attached to %s", n, id), func() (bool, string) {
		st := status(t, root, id)
		return st.Clients.Attached == n, fmt.Sprintf("%d attached", st.Clients.Attached)
	})
}

// Typed inside session A, "pty switch B" and "pty attach B" move the pty
// client in the user's terminal to B, as tmux's switch-client: the pane
// shows B's screen with B's history in its scrollback, keys reach B, and A
// goes on, detached. The title says which session is shown, lets the
// program's own title through and is the user's again after detach.
func TestSwitchFromInsideSession(t *testing.T) {
	root := testutil.Root(t)
	for _, how := range []string{"switch", "attach"} {
		t.Run(how, func(t *testing.T) {
			a, b := how[:2]+"a", how[:2]+"b"
			start(t, root, a, 3)
			start(t, root, b, 60)
			u := attachIn(t, root, nil, a)
			waitTitle(t, u, "pty: "+a+"-name")

			u.Keys("pty "+how+" "+b, "Enter")
			u.WaitText(b + "-line-60")
			u.WaitText(b + "$")
			waitTitle(t, u, "pty: "+b+"-name")
			all := u.All()
			first := -1
			for i, l := range all {
				if l == b+"-line-1" {
					first = i
					break
				}
			}
			if first < 0 || first+60 > len(all) {
				t.Fatalf("%s's history is not in the terminal:\n%s", b, strings.Join(all, "\n"))
			}
			for i := 1; i <= 60; i++ {
				if got, want := all[first+i-1], fmt.Sprintf("%s-line-%d", b, i); got != want {
					t.Fatalf("line %d of %s's history in the terminal is %q, want %q:\n%s", i, b, got, want, strings.Join(all, "\n"))
				}
			}
			attached(t, root, a, 0)
			attached(t, root, b, 1)
			if !status(t, root, a).Process.Alive {
				t.Fatalf("%s ended on the switch", a)
			}

			u.Keys("echo typed-$((6*7))", "Enter")
			testutil.WaitFor(t, 10*time.Second, "the keys to reach "+b, func() bool {
				return strings.Contains(testutil.Run(t, root, "peek", "--plain", b).Stdout, "typed-42")
			})
			if s := testutil.Run(t, root, "peek", "--plain", a).Stdout; strings.Contains(s, "typed") {
				t.Errorf("keys typed after the switch reached %s:\n%s", a, s)
			}

			u.Keys(`printf '\033]2;prog-title\007'`, "Enter")
			waitTitle(t, u, "prog-title")

			// And back: the title stack stays balanced.
			u.Keys("pty "+how+" "+a, "Enter")
			u.WaitScreen(a+"'s screen", func(s string) bool {
				return strings.Contains(s, a+"-line-3") && !strings.Contains(s, "typed-42")
			})
			waitTitle(t, u, "pty: "+a+"-name")
			attached(t, root, a, 1)
			attached(t, root, b, 0)
			u.Keys(`C-\`)
			u.WaitText("[detached]")
			waitTitle(t, u, "user-title")
		})
	}
}

// With two terminals attached to A, the one the switch was typed in
// moves, not the one that attached last; the other still shows A.
func TestSwitchMovesTheClientTypedIn(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "ma", 3)
	start(t, root, "mb", 3)
	typist := attachIn(t, root, nil, "ma")
	other := attachIn(t, root, nil, "ma")
	attached(t, root, "ma", 2)
	typist.Keys("pty switch mb", "Enter")
	typist.WaitText("mb-line-3")
	attached(t, root, "mb", 1)
	attached(t, root, "ma", 1)
	other.Keys("echo still-$((6*7))", "Enter")
	testutil.WaitFor(t, 10*time.Second, "the other terminal's keys to reach ma", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "ma").Stdout, "still-42")
	})
	other.WaitText("still-42")
	if s := typist.Screen(); strings.Contains(s, "still") {
		t.Errorf("the switched terminal still shows ma:\n%s", s)
	}
}

// The picker opened inside a session switches too: Enter on another
// session moves the client, and the picker ends in the session left.
func TestSwitchFromPicker(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "pa", 3)
	start(t, root, "pb", 5)
	u := attachIn(t, root, nil, "pa")
	u.Keys("pty", "Enter")
	u.WaitText("Create new session")
	u.Keys("pb")
	u.WaitScreen("the filter to keep pb", func(s string) bool { return !strings.Contains(s, " pa ") && strings.Contains(s, "pb") })
	u.Keys("Enter")
	u.WaitText("pb-line-5")
	u.WaitText("pb$")
	attached(t, root, "pb", 1)
	attached(t, root, "pa", 0)
	testutil.WaitFor(t, 10*time.Second, "the picker to end in pa", func() bool {
		s := testutil.Run(t, root, "peek", "--plain", "pa").Stdout
		return strings.HasSuffix(strings.TrimRight(s, "\n "), "pa$")
	})
}

// Where nothing can switch, it says so and nothing moves: outside a
// session, an unknown session, and inside a session no pty client shows.
func TestSwitchRefusals(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "ra", 3)
	start(t, root, "rb", 3)
	r := testutil.Run(t, root, "switch", "rb")
	if r.Code != 1 || !strings.Contains(r.Stderr, `use "pty attach rb"`) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Errorf("pty switch outside a session: %+v", r)
	}

	// Nobody is attached to ra: refused, by attach with today's message.
	testutil.MustRun(t, root, "send", "ra", "pty switch rb; echo rc=$?; pty attach rb; echo rc=$?\r")
	testutil.WaitFor(t, 10*time.Second, "both to be refused", func() bool {
		return strings.Count(testutil.Run(t, root, "peek", "--plain", "ra").Stdout, "rc=1") == 2
	})
	s := testutil.Run(t, root, "peek", "--plain", "ra").Stdout
	if !strings.Contains(s, `No pty client shows session "ra"`) || !strings.Contains(s, `already inside pty session "ra"`) {
		t.Errorf("refusals inside a session nobody shows:\n%s", s)
	}

	u := attachIn(t, root, nil, "ra")
	u.Keys("clear; pty switch nosuch; echo status $?", "Enter")
	scr := u.WaitText("status 1")
	lines := strings.Split(scr, "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], "nosuch") || lines[1] != "status 1" {
		t.Errorf("pty switch to an unknown session, want one line of error:\n%s", scr)
	}
	attached(t, root, "ra", 1)
	attached(t, root, "rb", 0)

	// The daemon's side of it, bounded: an empty request only asks, and
	// an id longer than any session's is refused without moving anyone.
	if ok, err := client.RequestSwitch(root, "ra", ""); !ok || err != nil {
		t.Errorf("asked whether a client of ra could switch: %v %v", ok, err)
	}
	if ok, err := client.RequestSwitch(root, "ra", strings.Repeat("x", 300)); ok || err != nil {
		t.Errorf("a switch to a 300-byte id: %v %v", ok, err)
	}
	u.Keys("echo still-$((6*7))", "Enter")
	u.WaitText("still-42")
	attached(t, root, "ra", 1)
}

// While attached the title names the session, and the user's is back
// when the session ends; PTY_SET_TITLE=0 leaves the user's title alone.
func TestTitle(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "ta", 3)
	u := attachIn(t, root, nil, "ta")
	waitTitle(t, u, "pty: ta-name")
	// The title goes out before the session's screen.
	u = attachIn(t, root, []string{"PTY_SET_TITLE=0"}, "ta")
	attached(t, root, "ta", 2)
	if got := title(u); got != "user-title" {
		t.Errorf("with PTY_SET_TITLE=0 the title is %q", got)
	}

	start(t, root, "te", 1)
	u = attachIn(t, root, nil, "te")
	waitTitle(t, u, "pty: te-name")
	u.Keys("exit", "Enter")
	u.WaitText("[te exited with code 0]")
	waitTitle(t, u, "user-title")
}
