package registry

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
)

// id is every row's session.
const id = "c1"

// A state is a session put into one registry state by real means: a real
// daemon started by pty run, ended, killed or held, and the files around
// it changed as a crash, a reboot or another program would change them.
type state struct {
	// hold, when set, is a daemon held (SIGSTOP) in its grace period:
	// a command that waits for it to finish is run with it released.
	hold func()
	// bystander is a process that is not this session's daemon, whose
	// pid the registry names; no command may signal it.
	bystander int
}

// live starts the session: a shell that exits 3 on a line of input.
func live(t *testing.T, root string) *state {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "team=a", "--", "sh", "-c", "read x; exit 3")
	waitStatus(t, root, layout.Running, true)
	return &state{}
}

// waitStatus waits until the registry reads the session with status st
// and, when live is set, its daemon's pid known.
func waitStatus(t *testing.T, root string, st layout.Status, live bool) {
	t.Helper()
	r, err := layout.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WaitForState(t, 15*time.Second, id+" to be "+string(st), func() (bool, string) {
		s, err := r.Load(id)
		if err != nil {
			return false, err.Error()
		}
		if _, err := os.Lstat(r.Paths(id).Launch()); err == nil {
			return false, "launch claim still there"
		}
		return s.Status == st && (!live || s.Pid > 0), fmt.Sprintf("%s pid %d", s.Status, s.Pid)
	})
}

// end sends the line that makes the session's command exit.
func end(t *testing.T, root string) {
	t.Helper()
	if err := client.Send(root, id, []byte("\r")); err != nil {
		t.Fatal(err)
	}
}

// killDaemon SIGKILLs the session's daemon, as the OOM killer does, and
// waits until it is gone.
func killDaemon(t *testing.T, root string) int {
	t.Helper()
	r, _ := layout.Open(root)
	pid := r.Pid(id)
	if pid <= 0 || !r.VerifyDaemon(pid, id, "") {
		t.Fatalf("no daemon to kill (pid %d)", pid)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "the killed daemon to be reaped", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
	return pid
}

// alive reports whether pid runs and is no zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// bystander starts a process that is no session's daemon.
func bystander(t *testing.T) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "1000")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

func setRecord(t *testing.T, root string, fn func(m *layout.Metadata)) {
	t.Helper()
	r, _ := layout.Open(root)
	if _, err := r.Update(id, func(m *layout.Metadata) ([]layout.Event, error) { fn(m); return nil, nil }); err != nil {
		t.Fatal(err)
	}
}

// The registry states of the contract.
var states = []struct {
	name  string
	build func(t *testing.T, root string) *state
}{
	{"live", live},
	{"exiting", func(t *testing.T, root string) *state {
		s := live(t, root)
		end(t, root)
		s.hold = testutil.HoldGrace(t, root, id)
		return s
	}},
	{"exited", func(t *testing.T, root string) *state {
		s := live(t, root)
		end(t, root)
		waitStatus(t, root, layout.Exited, false)
		return s
	}},
	{"vanished", func(t *testing.T, root string) *state {
		s := live(t, root)
		killDaemon(t, root)
		waitStatus(t, root, layout.Vanished, false)
		return s
	}},
	{"damaged", func(t *testing.T, root string) *state {
		s := live(t, root)
		end(t, root)
		waitStatus(t, root, layout.Exited, false)
		if err := os.WriteFile(layout.At(root).Paths(id).Meta(), []byte("{\"command\":"), 0o600); err != nil {
			t.Fatal(err)
		}
		return s
	}},
	{"damaged-live", func(t *testing.T, root string) *state {
		s := live(t, root)
		if err := os.WriteFile(layout.At(root).Paths(id).Meta(), []byte("{\"command\":"), 0o600); err != nil {
			t.Fatal(err)
		}
		return s
	}},
	// A crash, then a reboot: the pid file and the record name a pid
	// that now belongs to an unrelated process.
	{"pid-reused", func(t *testing.T, root string) *state {
		s := live(t, root)
		killDaemon(t, root)
		s.bystander = bystander(t).Process.Pid
		pid := s.bystander
		setRecord(t, root, func(m *layout.Metadata) { m.DaemonPid = pid })
		if err := os.WriteFile(layout.At(root).Paths(id).Pid(), []byte(fmt.Sprint(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		return s
	}},
	// A crash with no pid file left, and the socket's name since bound
	// by another program: something accepts there, but not this
	// session's daemon.
	{"socket-other", func(t *testing.T, root string) *state {
		s := live(t, root)
		killDaemon(t, root)
		p := layout.At(root).Paths(id)
		os.Remove(p.Pid())
		os.Remove(p.Sock())
		l, err := net.Listen("unix", p.Sock())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return s
	}},
	// The record was rewritten for a new generation (a replacement
	// being launched) while the old generation's daemon still runs: that
	// daemon is not this record's.
	{"other-generation", func(t *testing.T, root string) *state {
		s := live(t, root)
		s.bystander = layout.At(root).Pid(id)
		setRecord(t, root, func(m *layout.Metadata) { m.Generation = strings.Repeat("ab", 16) })
		return s
	}},
}

// obs is what one command said: its exit status and output.
type obs struct {
	code int
	out  string
}

func (o obs) String() string { return fmt.Sprintf("exit %d: %s", o.code, strings.TrimSpace(o.out)) }

func run(t *testing.T, root string, st *state, args ...string) obs {
	t.Helper()
	c := testutil.Command(t, root, "", args...)
	c.Stdin = nil
	if st.hold != nil && (args[0] == "kill" || args[0] == "rm" || args[0] == "restart") {
		// These wait for the lingering daemon to finish: let it.
		st.hold()
	}
	r := testutil.RunCmd(t, c)
	return obs{r.Code, r.Stdout + r.Stderr}
}

// listStatus is the session's status and damage in pty list --json, once
// the text listing is seen to put it in the section of that status.
func listStatus(t *testing.T, root string, st *state) string {
	if j, txt := jsonListStatus(t, root, st), textListStatus(t, root, st); !strings.HasPrefix(j, txt+" ") && j != txt {
		return "--json says " + j + ", the text listing " + txt
	}
	return jsonListStatus(t, root, st)
}

// textListStatus is the section of pty list the session's row is in.
func textListStatus(t *testing.T, root string, st *state) string {
	section := "none"
	for _, line := range strings.Split(run(t, root, st, "list").out, "\n") {
		if w, _, ok := strings.Cut(line, " ("); ok && !strings.HasPrefix(line, " ") && strings.HasSuffix(line, "):") {
			section = strings.ToLower(w)
		} else if f := strings.Fields(line); len(f) > 0 && f[0] == id {
			return section
		}
	}
	return "not listed"
}

func jsonListStatus(t *testing.T, root string, st *state) string {
	o := run(t, root, st, "list", "--json")
	var es []struct {
		Name, Status, Damaged string
	}
	if err := json.Unmarshal([]byte(o.out), &es); err != nil {
		return "unparsed: " + o.String()
	}
	for _, e := range es {
		if e.Name == id {
			if e.Damaged != "" {
				return e.Status + " damaged"
			}
			return e.Status
		}
	}
	return "not listed"
}

// gcAction is what gc -n plans for the session.
func gcAction(t *testing.T, root string, st *state) string {
	o := run(t, root, st, "gc", "-n", "--json", "--keep-max-age", "0", "--failed-ttl", "0")
	var res struct {
		Actions []struct{ Action, ID, File string }
	}
	if err := json.Unmarshal([]byte(o.out), &res); err != nil {
		return "unparsed: " + o.String()
	}
	var acts []string
	for _, a := range res.Actions {
		if a.ID == id || strings.HasPrefix(a.File, id+".") {
			acts = append(acts, a.Action)
		}
	}
	if len(acts) == 0 {
		return "none"
	}
	return strings.Join(acts, ",")
}

func statsStatus(t *testing.T, root string, st *state) string {
	o := run(t, root, st, "stats", "--json", id)
	// A live daemon's own STATUS reply says alive; a session without
	// one is described from its record, with its status.
	var e struct {
		Status  string
		Process struct{ Alive *bool }
	}
	if err := json.Unmarshal([]byte(o.out), &e); err != nil || o.code != 0 {
		return o.String()
	}
	if e.Status == "" && e.Process.Alive != nil {
		return fmt.Sprintf("daemon alive=%v", *e.Process.Alive)
	}
	return e.Status
}

// The cells of one row: what each command must say. An outcome is
// "exit N" and, after a colon, a piece of its output.
type want struct {
	list, gc, stats                       string
	peek, send, attach, kill, rm, restart string
}

func (w want) cell(cmd string) string {
	return map[string]string{"list": w.list, "gc": w.gc, "stats": w.stats, "peek": w.peek, "send": w.send,
		"attach": w.attach, "kill": w.kill, "rm": w.rm, "restart": w.restart}[cmd]
}

var contract = map[string]want{
	"live": {list: "running", gc: "none", stats: "daemon alive=true",
		peek: "exit 0", send: "exit 0", attach: "exit 1: needs a terminal",
		kill: "exit 0", rm: "exit 1: is running", restart: "exit 0"},
	"exiting": {list: "exited", gc: "removed", stats: "exited",
		peek: "exit 0", send: "exit 1: is not running (status: exited)", attach: "exit 1: needs a terminal",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 0"},
	"exited": {list: "exited", gc: "removed", stats: "exited",
		peek: "exit 0", send: "exit 1: is not running (status: exited)", attach: "exit 1: is not running (status: exited)",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 0"},
	"vanished": {list: "vanished", gc: "removed", stats: "vanished",
		peek: "exit 0", send: "exit 1: is not running (status: vanished)", attach: "exit 1: is not running (status: vanished)",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 0"},
	"damaged": {list: "vanished damaged", gc: "none", stats: "exit 1: damaged",
		peek: "exit 1: damaged", send: "exit 1: damaged", attach: "exit 1: damaged",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 1: damaged"},
	// The daemon serves as ever: what talks to it alone works; what
	// needs the record refuses.
	"damaged-live": {list: "running damaged", gc: "none", stats: "daemon alive=true",
		peek: "exit 0", send: "exit 0", attach: "exit 1: needs a terminal",
		kill: "exit 0", rm: "exit 1: is running", restart: "exit 1: damaged"},
	"pid-reused": {list: "vanished", gc: "removed", stats: "vanished",
		peek: "exit 0", send: "exit 1: is not running (status: vanished)", attach: "exit 1: is not running (status: vanished)",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 0"},
	"socket-other": {list: "vanished", gc: "removed", stats: "vanished",
		peek: "exit 0", send: "exit 1: is not running (status: vanished)", attach: "exit 1: is not running (status: vanished)",
		kill: "exit 1: not running", rm: "exit 0", restart: "exit 0"},
	"other-generation": {list: "vanished", gc: "none", stats: "vanished",
		peek: "exit 0", send: "exit 1: is not running (status: vanished)", attach: "exit 1: is not running (status: vanished)",
		kill: "exit 1: not running", rm: "exit 1: replaced", restart: "exit 1"},
}

// observe runs cmd against a session in state st.
func observe(t *testing.T, root, cmd string, st *state) string {
	switch cmd {
	case "list":
		return listStatus(t, root, st)
	case "gc":
		return gcAction(t, root, st)
	case "stats":
		s := statsStatus(t, root, st)
		return s
	case "peek":
		return run(t, root, st, "peek", id).String()
	case "send":
		return run(t, root, st, "send", id, "x").String()
	case "attach":
		return run(t, root, st, "attach", "--no-restart", id).String()
	case "kill":
		return run(t, root, st, "kill", id).String()
	case "rm":
		return run(t, root, st, "rm", id).String()
	case "restart":
		return run(t, root, st, "restart", "-y", id).String()
	}
	panic(cmd)
}

// agrees reports whether an observation satisfies a cell: a word for the
// status columns, an outcome for the commands.
func agrees(got, w string) bool {
	if strings.HasPrefix(w, "exit ") {
		code, piece, _ := strings.Cut(w, ":")
		return strings.HasPrefix(got, strings.TrimSpace(code)+":") && strings.Contains(got, strings.TrimSpace(piece)) ||
			got == strings.TrimSpace(code)+": " && piece == ""
	}
	return got == w
}

// readers leave the state as it was, so they share one build of it;
// each writer gets its own.
var (
	readers = []string{"list", "gc", "stats", "peek", "send", "attach"}
	writers = []string{"kill", "rm", "restart"}
)

func TestContract(t *testing.T) {
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			w := contract[s.name]
			check := func(t *testing.T, root, cmd string, st *state) {
				got := observe(t, root, cmd, st)
				if !agrees(got, w.cell(cmd)) {
					t.Errorf("%s, %s: got %q, want %q", s.name, cmd, got, w.cell(cmd))
				}
				if st.bystander > 0 && !alive(st.bystander) {
					t.Errorf("%s, %s: pid %d is gone, and it was not the session's daemon", s.name, cmd, st.bystander)
				}
			}
			t.Run("read", func(t *testing.T) {
				root := testutil.Root(t)
				st := s.build(t, root)
				for _, cmd := range readers {
					check(t, root, cmd, st)
				}
			})
			for _, cmd := range writers {
				t.Run(cmd, func(t *testing.T) {
					t.Parallel()
					root := testutil.Root(t)
					st := s.build(t, root)
					check(t, root, cmd, st)
				})
			}
		})
	}
}
