package events

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

func start(t *testing.T, root, id string) {
	t.Helper()
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "keep=true", "--", "sleep", "1000")
}

// watcher is a `pty events ...` process running in the background.
type watcher struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func watch(t *testing.T, root string, args ...string) *watcher {
	t.Helper()
	w := &watcher{cmd: testutil.Command(t, root, "", append([]string{"events"}, args...)...), done: make(chan struct{})}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w.cmd.Stderr = os.Stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			w.mu.Lock()
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		w.cmd.Process.Kill()
		<-w.done
		w.cmd.Wait()
	})
	return w
}

func (w *watcher) output() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

func (w *watcher) has(sub string) bool {
	for _, l := range w.output() {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// ready emits a marker until the watcher prints it: from then on it is
// following, and everything emitted later must reach it.
func (w *watcher) ready(t *testing.T, root, id string) {
	t.Helper()
	testutil.WaitFor(t, 20*time.Second, "the events follower to start", func() bool {
		testutil.MustRun(t, root, "emit", id, "user.ready")
		return w.has(`user.ready`)
	})
}

func TestEventsFollowsChangesInOrder(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	raw := watch(t, root, "s", "--json")
	human := watch(t, root, "s")
	raw.ready(t, root, "s")
	human.ready(t, root, "s")

	for i := 0; i < 20; i++ {
		testutil.MustRun(t, root, "emit", "s", "user.step", "--json", fmt.Sprintf(`{"i": %d}`, i))
	}
	testutil.MustRun(t, root, "tag", "s", "role=web")
	testutil.MustRun(t, root, "rename", "s", "Web")
	testutil.MustRun(t, root, "state", "set", "s", "phase", `"up"`)
	testutil.MustRun(t, root, "emit", "s", "user.done", "--text", "bye")
	testutil.WaitFor(t, 10*time.Second, "user.done in both followers", func() bool {
		return raw.has(`"user.done"`) && human.has("user.done")
	})

	var types []string
	next := 0
	for _, l := range raw.output() {
		var e layout.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("--json printed a line that is not JSON: %q", l)
		}
		if e.Type == "user.ready" {
			continue
		}
		types = append(types, e.Type)
		if e.Type == "user.step" {
			if got := e.Fields["data"].(map[string]any)["i"]; got != float64(next) {
				t.Fatalf("user.step %v arrived where %d was due", got, next)
			}
			next++
		}
	}
	want := strings.Repeat("user.step ", 20) + "tags_change display_name_change state.set user.done"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("event order:\n got %s\nwant %s", got, want)
	}

	// HH:MM:SS  <session>  <type>  <compact payload>
	re := regexp.MustCompile(`^\d\d:\d\d:\d\d  s  user\.done  \{"text":"bye"\}$`)
	found := false
	for _, l := range human.output() {
		found = found || re.MatchString(l)
	}
	if !found {
		t.Fatalf("no human-formatted user.done line in %q", human.output())
	}
}

func TestEventsWait(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")

	cmd := testutil.Command(t, root, "", "events", "s", "--wait", "user.done", "-t", "60")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	testutil.WaitFor(t, 30*time.Second, "the waiter to see user.done", func() bool {
		testutil.MustRun(t, root, "emit", "s", "user.other")
		testutil.MustRun(t, root, "emit", "s", "user.done", "--json", `{"ok":true}`)
		select {
		case werr = <-exited:
			return true
		case <-time.After(20 * time.Millisecond):
			return false
		}
	})
	if werr != nil {
		t.Fatalf("waiter: %v: %s", werr, errb.String())
	}
	if !strings.Contains(out.String(), "user.done") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("waiter printed %q, want exactly the user.done event", out.String())
	}

	r := testutil.Run(t, root, "events", "s", "--wait", "user.never", "-t", "0.3")
	if r.Code != 1 || r.Stderr != "Timed out after 0.3s waiting for \"user.never\" event.\n" {
		t.Fatalf("timeout: code %d stderr %q", r.Code, r.Stderr)
	}
	r = testutil.Run(t, root, "events", "s", "--wait", "no_such_type", "-t", "1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "unknown event type") {
		t.Fatalf("unknown type: code %d stderr %q", r.Code, r.Stderr)
	}
}

func TestEventsAllFollowsNewSessions(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "a")
	w := watch(t, root, "--all", "--json")
	w.ready(t, root, "a")
	start(t, root, "b")
	testutil.MustRun(t, root, "emit", "b", "user.hello")
	testutil.WaitFor(t, 10*time.Second, "b's events in --all", func() bool {
		return w.has(`"session":"b","type":"session_start"`) && w.has(`"session":"b","type":"user.hello"`)
	})
}

func TestEventsRecent(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	evs := make([]layout.Event, 60)
	for i := range evs {
		evs[i] = layout.NewEvent("s", "user.n", "i", i)
	}
	if err := layout.At(root).AppendEvents("s", evs...); err != nil {
		t.Fatal(err)
	}
	r := testutil.MustRun(t, root, "events", "s", "--recent", "--json")
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 50 || !strings.Contains(lines[0], `"i":10`) || !strings.Contains(lines[49], `"i":59`) {
		t.Fatalf("--recent printed %d lines: first %q last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if r := testutil.MustRun(t, root, "events", "--all", "--recent"); strings.Count(r.Stdout, "\n") != 50 {
		t.Fatalf("--all --recent printed %d lines", strings.Count(r.Stdout, "\n"))
	}
}

func TestEmitRefusesBadInput(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	before, _ := os.ReadFile(layout.At(root).Paths("s").Events())
	for _, args := range [][]string{
		{"emit", "s", "bell"},
		{"emit", "s", "user."},
		{"emit", "s", "user.a b"},
		{"emit", "s", "user.x", "--json", "{nope"},
		{"emit", "nope", "user.x"},
		{"emit", "user.x"}, // not inside a session
	} {
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || r.Stderr == "" || strings.Contains(strings.TrimSpace(r.Stderr), "\n") {
			t.Errorf("pty %q: code %d stderr %q, want exit 1 and one line", args, r.Code, r.Stderr)
		}
	}
	if after, _ := os.ReadFile(layout.At(root).Paths("s").Events()); string(after) != string(before) {
		t.Fatal("refused emits changed the log")
	}
	// Inside a session the ref defaults to $PTY_SESSION.
	cmd := testutil.Command(t, root, "", "emit", "user.inside")
	cmd.Env = append(cmd.Env, "PTY_SESSION=s")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("emit inside: %s", r.Stderr)
	}
	if b, _ := os.ReadFile(layout.At(root).Paths("s").Events()); !strings.Contains(string(b), `"type":"user.inside"`) {
		t.Fatal("emit with $PTY_SESSION did not reach the session's log")
	}
}

// 50 concurrent `pty emit` while retention rewrites the log: every line
// stays valid JSON, no emitted event is missing from the log, and a
// follower sees each exactly once across the rewrite.
func TestConcurrentEmitsDuringRetention(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	w := watch(t, root, "s", "--json")
	w.ready(t, root, "s")

	old, _ := layout.At(root).Events("s")
	fill := make([]layout.Event, layout.EventsMaxLines-len(old)-10)
	for i := range fill {
		fill[i] = layout.NewEvent("s", "user.fill", "pad", strings.Repeat("x", 40))
	}
	if err := layout.At(root).AppendEvents("s", fill...); err != nil {
		t.Fatal(err)
	}
	fi0, _ := os.Stat(layout.At(root).Paths("s").Events())

	const n = 50
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := testutil.RunCmd(t, testutil.Command(t, root, "", "emit", "s", "user.c", "--json", fmt.Sprintf(`{"i":%d}`, i)))
			if r.Code != 0 {
				errs <- fmt.Sprintf("emit %d: exit %d: %s", i, r.Code, r.Stderr)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	b, err := os.ReadFile(layout.At(root).Paths("s").Events())
	if err != nil {
		t.Fatal(err)
	}
	fi1, _ := os.Stat(layout.At(root).Paths("s").Events())
	if os.SameFile(fi0, fi1) {
		t.Fatal("the log was not rewritten; the test did not exercise retention")
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) > layout.EventsMaxLines {
		t.Fatalf("log has %d lines after retention", len(lines))
	}
	seen := map[float64]int{}
	for _, l := range lines {
		var e layout.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Type == "" {
			t.Fatalf("invalid line in the log: %q", l)
		}
		if e.Type == "user.c" {
			seen[e.Fields["data"].(map[string]any)["i"].(float64)]++
		}
	}
	for i := 0; i < n; i++ {
		if seen[float64(i)] != 1 {
			t.Errorf("emitted event %d appears %d times in the log", i, seen[float64(i)])
		}
	}

	testutil.WaitFor(t, 10*time.Second, "the follower to see all 50 events", func() bool {
		c := 0
		for _, l := range w.output() {
			if strings.Contains(l, `"type":"user.c"`) {
				c++
			}
		}
		return c >= n
	})
	got := map[string]int{}
	for _, l := range w.output() {
		if strings.Contains(l, `"type":"user.c"`) {
			var e layout.Event
			json.Unmarshal([]byte(l), &e)
			got[fmt.Sprint(e.Fields["data"])]++
		}
	}
	if len(got) != n {
		t.Errorf("follower saw %d distinct events, want %d", len(got), n)
	}
	for k, c := range got {
		if c != 1 {
			t.Errorf("follower saw %s %d times", k, c)
		}
	}
	fills := 0
	for _, l := range w.output() {
		if strings.Contains(l, `"type":"user.fill"`) {
			fills++
		}
	}
	if fills != len(fill) {
		t.Errorf("follower saw %d fill events, want %d (lines repeated or lost across the rewrite)", fills, len(fill))
	}
}

// exit waits for the follower to end by itself and returns its exit code.
func (w *watcher) exit(t *testing.T, what string) int {
	t.Helper()
	select {
	case <-w.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("pty events is still following %s; output %q", what, w.output())
	}
	err := w.cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

func TestEventsFollowEndsAfterSessionExit(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	w := watch(t, root, "s")
	w.ready(t, root, "s")
	testutil.MustRun(t, root, "kill", "s")
	if code := w.exit(t, "after the session's session_exit"); code != 0 {
		t.Fatalf("follower exited %d, want 0; output %q", code, w.output())
	}
	if !w.has("session_exit") {
		t.Fatalf("the follower ended without printing session_exit: %q", w.output())
	}
	// --all is not about one session: it keeps following.
	all := watch(t, root, "--all")
	start(t, root, "t")
	all.ready(t, root, "t")
	testutil.MustRun(t, root, "kill", "t")
	testutil.WaitFor(t, 20*time.Second, "session_exit in --all", func() bool { return all.has("session_exit") })
	select {
	case <-all.done:
		t.Fatalf("pty events --all ended after one session's exit: %q", all.output())
	default:
	}
}

func TestEventsOfAnEndedSession(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	testutil.MustRun(t, root, "kill", "s")

	w := watch(t, root, "s")
	if code := w.exit(t, "a session that had already exited"); code != 0 || len(w.output()) != 0 {
		t.Fatalf("following an exited session: exit %d, output %q; want 0 and nothing", code, w.output())
	}
	r := testutil.Run(t, root, "events", "s", "--wait", "session_exit")
	if r.Code != 0 || !strings.Contains(r.Stdout, "session_exit") || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("--wait session_exit after the exit: code %d stdout %q stderr %q; want the recorded exit", r.Code, r.Stdout, r.Stderr)
	}
	r = testutil.Run(t, root, "events", "s", "--wait", "user.done")
	if r.Code != 1 || r.Stderr != "Session \"s\" ended without a user.done event.\n" {
		t.Fatalf("--wait user.done after the exit: code %d stderr %q", r.Code, r.Stderr)
	}
}

func TestEventsFollowEndsWhenTheRecordGoes(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	w := watch(t, root, "s")
	w.ready(t, root, "s")
	// The daemon dies without a word (no session_exit), then the record
	// is removed: nothing is left to follow.
	b, err := os.ReadFile(layout.At(root).Paths("s").Pid())
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 20*time.Second, "the session to vanish", func() bool {
		return strings.Contains(testutil.MustRun(t, root, "list").Stdout, "Vanished")
	})
	testutil.MustRun(t, root, "rm", "s")
	if code := w.exit(t, "a removed session"); code != 0 {
		t.Fatalf("follower exited %d, want 0; output %q", code, w.output())
	}
}

// Output that cannot be written (a full disk) is an error, exit 1 with the
// reason, as for pty list and peek: only a reader that went away (a closed
// pipe, | head) ends quietly.
func TestEventsUnwritableOutputFails(t *testing.T) {
	root := testutil.Root(t)
	start(t, root, "s")
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		testutil.MissingTool(t, "/dev/full")
	}
	defer full.Close()
	for _, args := range [][]string{{"events", "--recent", "s"}, {"events", "--recent", "--json", "--all"}} {
		cmd := testutil.Command(t, root, "", args...)
		var errb strings.Builder
		cmd.Stdout, cmd.Stderr = full, &errb
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "no space left on device") {
			t.Errorf("pty %v > /dev/full: %v, stderr %q; want exit 1 saying the disk is full", args, err, errb.String())
		}
	}
	// A closed pipe is still a quiet end.
	cmd := testutil.Command(t, root, "", "events", "--recent", "s")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	stdout.Close()
	if err := cmd.Run(); err != nil && errb.Len() > 0 {
		t.Errorf("events into a closed pipe: %v, stderr %q", err, errb.String())
	}
}
