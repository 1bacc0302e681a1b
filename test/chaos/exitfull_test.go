//go:build linux

package chaos

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// A command that exits while the registry's disk is full keeps its exit:
// the daemon stays, answering STATUS and peek with it, until the disk has
// room again and the exit is in the record.
func TestExitOnFullDiskIsRecordedOnceThereIsRoom(t *testing.T) {
	root := smallDisk(t, 1<<20)
	start := testutil.Command(t, root, "", "run", "-d", "--id", "five", "--", "sh", "-c", "echo before-the-exit; read x; exit 5")
	start.Env = append(start.Env, "PTY_REAP_ON_EXIT=false") // the record is what is checked
	if r := testutil.RunCmd(t, start); r.Code != 0 {
		t.Fatalf("run: %+v", r)
	}
	testutil.WaitFor(t, 10*time.Second, "the session's screen", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "five").Stdout, "before-the-exit")
	})
	filler := fill(t, root)
	if r := testutil.Run(t, root, "send", "five", "\r"); r.Code != 0 {
		t.Fatalf("send: %+v", r)
	}
	type status struct {
		Process struct {
			Alive    bool `json:"alive"`
			ExitCode *int `json:"exitCode"`
		} `json:"process"`
	}
	testutil.WaitFor(t, 10*time.Second, "the daemon to report the exit", func() bool {
		r := testutil.Run(t, root, "stats", "--json", "five")
		var st status
		return r.Code == 0 && json.Unmarshal([]byte(r.Stdout), &st) == nil && !st.Process.Alive &&
			st.Process.ExitCode != nil && *st.Process.ExitCode == 5
	})
	record := func() map[string]any {
		b, err := os.ReadFile(filepath.Join(root, "five.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("record: %v\n%s", err, b)
		}
		return m
	}
	if _, ok := record()["exitCode"]; ok {
		t.Fatalf("the exit was recorded on a full disk: the disk was not full")
	}
	// Not a wait for a condition: the daemon must still hold the exit
	// well past the few tries (and the shutdown backstop) after which
	// it used to give up and go.
	time.Sleep(7 * time.Second)
	r := testutil.Run(t, root, "peek", "--plain", "five")
	if r.Code != 5 || !strings.Contains(r.Stdout, "before-the-exit") {
		t.Errorf("peek while the exit is unrecorded: %+v, want the final screen and exit 5", r)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "the exit in the record", func() bool {
		c, ok := record()["exitCode"].(float64)
		return ok && c == 5
	})
	if out := testutil.MustRun(t, root, "list").Stdout; !strings.Contains(out, "exit 5") {
		t.Errorf("list after the disk has room:\n%s", out)
	}
}
