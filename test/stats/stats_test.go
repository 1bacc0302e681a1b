package stats

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
)

func TestStats(t *testing.T) {
	root := testutil.Root(t)
	if r := testutil.MustRun(t, root, "stats"); r.Stdout != "No running sessions.\n" {
		t.Errorf("stats of an empty registry = %q", r.Stdout)
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "s1", "--", "sleep", "1000")
	testutil.MustRun(t, root, "run", "-d", "--id", "s2", "--", "sleep", "1001")
	testutil.MustRun(t, root, "run", "-d", "--id", "done", "--tag", "keep=true", "--tag", "k=v", "--", "sh", "-c", "exit 4")
	testutil.WaitFor(t, 10*time.Second, "done to exit", func() bool {
		s, err := layout.At(root).Load("done")
		return err == nil && s.Status == layout.Exited
	})

	r := testutil.MustRun(t, root, "stats", "--json", "s1")
	one, err := proto.ParseStatus([]byte(r.Stdout))
	if err != nil {
		t.Fatalf("stats --json s1: %v\n%s", err, r.Stdout)
	}
	if one.Terminal.Cols <= 0 || one.Terminal.Rows <= 0 || !one.Process.Alive || one.Process.Pid <= 0 || one.Daemon.Pid != layout.At(root).Pid("s1") {
		t.Errorf("stats s1 = %+v", one)
	}

	var all []map[string]any
	r = testutil.MustRun(t, root, "stats", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &all); err != nil || len(all) != 2 {
		t.Fatalf("stats --json (all running) = %s", r.Stdout)
	}

	var dead map[string]any
	r = testutil.MustRun(t, root, "stats", "--json", "done")
	json.Unmarshal([]byte(r.Stdout), &dead)
	if dead["name"] != "done" || dead["status"] != "exited" || dead["exitCode"] != float64(4) || dead["exitedAt"] == nil {
		t.Errorf("stats of an exited session = %s", r.Stdout)
	}
	if tags, _ := dead["tags"].(map[string]any); tags["k"] != "v" {
		t.Errorf("stats of an exited session lacks its tags: %s", r.Stdout)
	}

	text := testutil.MustRun(t, root, "stats").Stdout
	for _, want := range []string{"s1", "s2", "size", "scrollback", "clients", "process     pid", "daemon      pid", "uptime"} {
		if !strings.Contains(text, want) {
			t.Errorf("stats text lacks %q:\n%s", want, text)
		}
	}
	if text := testutil.MustRun(t, root, "stats", "done").Stdout; !strings.Contains(text, "exited with code 4") {
		t.Errorf("stats text of an exited session = %q", text)
	}
	// A wedged daemon costs the caller 2 s, not forever.
	pid := layout.At(root).Pid("s2")
	syscall.Kill(pid, syscall.SIGSTOP)
	testutil.WaitFor(t, 10*time.Second, "the daemon to stop", func() bool {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		i := bytes.LastIndexByte(b, ')')
		return i > 0 && i+2 < len(b) && b[i+2] == 'T'
	})
	r = testutil.Run(t, root, "stats", "s2")
	syscall.Kill(pid, syscall.SIGCONT)
	if r.Code != 1 || !strings.Contains(r.Stderr, "no STATUS reply within 2s") {
		t.Errorf("stats of a stopped daemon: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := testutil.Run(t, root, "stats", "a", "b"); r.Code != 1 || !strings.Contains(r.Stderr, "Unexpected argument: b") {
		t.Errorf("stats a b: exit %d stderr %q", r.Code, r.Stderr)
	}
}

// Two sessions with one display name are told apart by id in stats --json,
// and clients.total counts the session's clients, not the connection stats
// asks on.
func TestStatsJSONCarriesIDAndCountsOthers(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "d1", "--name", "dup", "--", "sleep", "60")
	testutil.MustRun(t, root, "run", "-d", "--id", "d2", "--name", "dup", "--", "sleep", "60")
	var all []map[string]any
	r := testutil.MustRun(t, root, "stats", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &all); err != nil || len(all) != 2 {
		t.Fatalf("stats --json = %s (%v)", r.Stdout, err)
	}
	for i, want := range []string{"d1", "d2"} {
		if all[i]["id"] != want || all[i]["name"] != "dup" {
			t.Errorf("stats --json [%d]: id %v name %v, want id %s name dup", i, all[i]["id"], all[i]["name"], want)
		}
		if cl, _ := all[i]["clients"].(map[string]any); cl["total"] != float64(0) {
			t.Errorf("stats --json [%d]: clients %v, want total 0 with no client", i, cl)
		}
	}
	// A connection that has asked nothing (a liveness probe, about to
	// hang up) is not counted.
	silent, err := client.Dial(root, "d2")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var quiet map[string]any
	r = testutil.MustRun(t, root, "stats", "--json", "d2")
	if err := json.Unmarshal([]byte(r.Stdout), &quiet); err != nil {
		t.Fatalf("stats --json d2 = %s", r.Stdout)
	}
	if cl, _ := quiet["clients"].(map[string]any); cl["total"] != float64(0) {
		t.Errorf("stats --json d2 with a connection that asked nothing: clients %v, want total 0", cl)
	}
	// Another command's connection is counted once it has asked; stats'
	// own is not.
	conn, err := client.Dial(root, "d2")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Status(client.StatusTimeout); err != nil {
		t.Fatal(err)
	}
	var one map[string]any
	r = testutil.MustRun(t, root, "stats", "--json", "d2")
	if err := json.Unmarshal([]byte(r.Stdout), &one); err != nil || one["id"] != "d2" {
		t.Errorf("stats --json d2 = %s", r.Stdout)
	}
	if cl, _ := one["clients"].(map[string]any); cl["total"] != float64(1) {
		t.Errorf("stats --json d2 with another connection open: clients %v, want total 1", cl)
	}
}
