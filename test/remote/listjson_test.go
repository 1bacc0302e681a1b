package remote

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// oneHost is the original's JSON of "pty list --remote PEER --json".
type oneHost struct {
	Local  []struct{ Name, Status string }
	Remote []struct {
		Label    string
		Sessions []struct{ Name, Status string }
		Error    *string
	}
}

func parseOneHost(t *testing.T, out string) oneHost {
	t.Helper()
	var got oneHost
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(out, `{"local":[`) || !strings.Contains(out, `"remote":[{"label":`) {
		t.Fatalf("not the original's shape: %s", out)
	}
	return got
}

// "pty list --remote HOST --json" prints the original's shape for that
// one peer: this host's list (filtered as list filters) and HOST's
// sessions as it sent them; a host that fails is its error, exit 0.
func TestRemoteListOneHostJSON(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.local, "run", "-d", "--id", "here", "--", "sleep", "100")
	testutil.MustRun(t, f.local, "run", "-d", "--id", "hereexit", "--", "sh", "-c", "exit 3")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "ona", "--", "sleep", "100")
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "onaexit", "--", "sh", "-c", "exit 3")
	testutil.MustRun(t, f.rootB, "run", "-d", "--id", "onb", "--", "sleep", "100")
	for _, root := range []string{f.local, f.rootA} {
		testutil.WaitFor(t, 15*time.Second, "the short session's exit", func() bool {
			return strings.Contains(testutil.Run(t, root, "list", "--json", "--status", "exited").Stdout, "exit")
		})
	}
	for _, args := range [][]string{
		{"list", "--remote", "hosta", "--json", "--status", "running"},
		{"--remote", "hosta", "list", "--json", "--status", "running"},
		{"list", "--json", "--status", "running", "--remote=hosta"},
	} {
		r := f.mustPty(t, args...)
		got := parseOneHost(t, r.Stdout)
		if len(got.Local) != 1 || got.Local[0].Name != "here" || len(got.Remote) != 1 {
			t.Fatalf("pty %q: %s", args, r.Stdout)
		}
		h := got.Remote[0]
		names := map[string]string{}
		for _, s := range h.Sessions {
			names[s.Name] = s.Status
		}
		if h.Label != "hosta" || h.Error != nil || len(h.Sessions) != 2 || names["ona"] != "running" || names["onaexit"] != "exited" {
			t.Fatalf("pty %q: %s", args, r.Stdout)
		}
	}
	f.env = append(f.env, "PTY_REMOTE=hostb")
	got := parseOneHost(t, f.mustPty(t, "list", "--json").Stdout)
	if len(got.Remote) != 1 || got.Remote[0].Label != "hostb" || len(got.Remote[0].Sessions) != 1 || got.Remote[0].Sessions[0].Name != "onb" {
		t.Fatalf("PTY_REMOTE=hostb pty list --json: %+v", got)
	}
	f.env = f.env[:len(f.env)-1]
	// --summary counts the host's own sessions, on the host.
	if r := f.mustPty(t, "list", "--remote", "hosta", "--json", "--summary"); !strings.Contains(r.Stdout, `"ona"`) || strings.Contains(r.Stdout, "here") || strings.Contains(r.Stdout, `"local"`) {
		t.Fatalf("--summary: %s", r.Stdout)
	}

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "ssh://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	r := f.mustPty(t, "list", "--remote", dead, "--json")
	got = parseOneHost(t, r.Stdout)
	if len(got.Local) != 2 || len(got.Remote) != 1 || got.Remote[0].Label != dead || len(got.Remote[0].Sessions) != 0 ||
		got.Remote[0].Error == nil || !strings.Contains(*got.Remote[0].Error, "unreachable") || !strings.Contains(r.Stdout, `"sessions":[]`) {
		t.Fatalf("a host down: %s", r.Stdout)
	}
}
