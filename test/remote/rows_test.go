package remote

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ptyorg/pty/internal/testutil"
)

// rowsFleet is a fleet whose hosta has a running session that rang a
// bell nobody saw, and one that exited with status 3.
func rowsFleet(t *testing.T) *fleet {
	t.Helper()
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "ringer", "--", "sh", "-c", "printf '\\a'; echo rang; sleep 100")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "failed", "--", "sh", "-c", "exit 3")
	testutil.WaitFor(t, 15*time.Second, "the bell's marker and the exit on hosta", func() bool {
		out := testutil.Run(t, f.rootA, "list", "--json").Stdout
		return strings.Contains(out, `"activity": [`) && strings.Contains(out, `"exitCode": 3`)
	})
	return f
}

// The fleet list shows a host's sessions with their ages and activity
// markers, as this host's: remote-serve's rows carry when each started
// and ended, how it ended and its markers, in fields the original's
// clients ignore.
func TestRemoteRowsAgeActivity(t *testing.T) {
	f := rowsFleet(t)
	r := f.mustPty(t, "list", "--remote")
	ringer := regexp.MustCompile(`(?m)^  ● [^ ]+ \(ringer\) — up \d+s — [^\n]* — sh -c [^\n]*  \[bell\]$`)
	failed := regexp.MustCompile(`(?m)^  ○ [^ ]+ \(failed\) \[exited\] — exit 3, \d+s ago — `)
	if !ringer.MatchString(r.Stdout) || !failed.MatchString(r.Stdout) {
		t.Fatalf("pty list --remote:\n%s", r.Stdout)
	}
	// --json: the original's fields, then ours.
	var got struct {
		Remote []struct {
			Label    string
			Sessions []map[string]any
		}
	}
	out := f.mustPty(t, "list", "--remote", "hosta", "--json").Stdout
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Remote) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	rows := map[string]map[string]any{}
	for _, s := range got.Remote[0].Sessions {
		rows[s["name"].(string)] = s
	}
	if a, _ := rows["ringer"]["activity"].([]any); len(a) != 1 || a[0] != "bell" || rows["ringer"]["createdAt"] == nil || rows["ringer"]["exitedAt"] != nil {
		t.Fatalf("ringer's row: %s", out)
	}
	if rows["failed"]["exitCode"] != 3.0 || rows["failed"]["exitedAt"] == nil {
		t.Fatalf("failed's row: %s", out)
	}
	// The age bounds reach the hosts' rows now that they carry times.
	if r := f.mustPty(t, "list", "--remote", "--older-than", "1h"); strings.Contains(r.Stdout, "ringer") || !strings.Contains(r.Stdout, "hosta (0 sessions)") {
		t.Fatalf("--older-than 1h:\n%s", r.Stdout)
	}
	if r := f.mustPty(t, "list", "--remote", "--newer-than", "1h"); !strings.Contains(r.Stdout, "ringer") || !strings.Contains(r.Stdout, "hosta (2 sessions)") {
		t.Fatalf("--newer-than 1h:\n%s", r.Stdout)
	}
}

// The picker's host groups show the same ages and markers.
func TestRemotePickerAgeActivity(t *testing.T) {
	f := rowsFleet(t)
	tm := testutil.StartUserTmuxCmd(t, 30, 140, f.env, filepath.Join(testutil.BinDir(t), "pty"))
	up := regexp.MustCompile(`ringer .* up \d+s +\[bell\]`)
	exit := regexp.MustCompile(`failed .* exit 3, \d+s ago`)
	tm.WaitScreen("hosta's rows with their ages and the bell", func(s string) bool {
		return strings.Contains(s, "hosta (2 sessions)") && up.MatchString(s) && exit.MatchString(s)
	})
}

// pty web --remotes' list shows them too.
func TestRemoteWebAgeActivity(t *testing.T) {
	f := rowsFleet(t)
	f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\n")
	url := startRemoteWeb(t, f).url
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	row := `document.querySelector('section[data-host="hosta"] li[data-id="%s"]')`
	ringer, failed := strings.ReplaceAll(row, "%s", "ringer"), strings.ReplaceAll(row, "%s", "failed")
	pageTrue(t, ctx, "hosta's rows with their ages and the bell", `!!`+ringer+` && /^up \d+s$/.test(`+ringer+`.querySelector('.when').textContent) &&
		`+ringer+`.querySelector('.activity.bell').textContent === '[bell]' &&
		/^ended \d+s ago$/.test(`+failed+`.querySelector('.when').textContent) && `+failed+`.querySelector('.exit').textContent === 'exit 3'`)
}

// originalHost answers list requests on a Unix socket with the reply the
// original's remote-serve writes (its src/remote.ts: the six fields, no
// times, no "now"), for a host running the original, whose npm release
// these tests install has no remote-serve yet.
func originalHost(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if l, _ := bufio.NewReader(c).ReadString('\n'); l == `{"op":"list"}`+"\n" {
					c.Write([]byte(`{"sessions":[{"name":"up1","status":"running","command":"sleep 100","cwd":"/srv","tags":{"team":"core"}},{"name":"up2","status":"exited"}]}` + "\n"))
				}
			}()
		}
	}()
}

// A host whose remote-serve sends only the original's fields still has
// its rows listed, in the fleet list and the picker, with no ages.
func TestRemoteRowsOriginalHost(t *testing.T) {
	f := newFleet(t)
	sock := filepath.Join(f.dir, "orig.sock")
	originalHost(t, sock)
	f.write(t, "fabric", "#!/bin/sh\necho "+sock+"\n")
	os.Chmod(filepath.Join(f.dir, "fabric"), 0o700)
	f.env = append(f.env, "PTY_FABRIC_BIN="+filepath.Join(f.dir, "fabric"))
	f.write(t, "pty/remotes.toml", "[old]\nfabric = \"old\"\n")
	r := f.mustPty(t, "list", "--remote")
	if !strings.Contains(r.Stdout, "old (2 sessions):\n  ● up1 — /srv — sleep 100\n  ○ up2 [exited]\n") {
		t.Fatalf("pty list --remote of an original's host:\n%s", r.Stdout)
	}
	if out := f.mustPty(t, "list", "--remote", "old", "--json").Stdout; !strings.Contains(out, `"sessions":[{"name":"up1","status":"running","command":"sleep 100","cwd":"/srv","tags":{"team":"core"}},{"name":"up2","status":"exited"}]`) {
		t.Fatalf("pty list --remote old --json: %s", out)
	}
	tm := testutil.StartUserTmuxCmd(t, 24, 120, f.env, filepath.Join(testutil.BinDir(t), "pty"))
	tm.WaitScreen("the original's host's rows in the picker", func(s string) bool {
		return strings.Contains(s, "old (2 sessions)") && regexp.MustCompile(`up1 +/srv +sleep 100 +#team=core`).MatchString(s) &&
			regexp.MustCompile(`up2 +exited`).MatchString(s)
	})
}
