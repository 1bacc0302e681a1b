// Package compat proves that this pty and the original TypeScript pty
// (npm @myobie/pty 0.10.0) share a root: each one's clients drive the
// other's daemons, and each one's files parse on the other side.
//
// The upstream package is installed by install-upstream.sh into
// $PTY_COMPAT_DIR (default /tmp/pty-upstream). Without it the tests skip,
// unless PTY_COMPAT_REQUIRED=1, when they fail.
package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/term"
)

// upstreamVersion is the release these tests were written against.
const upstreamVersion = "0.10.0"

// upstream is an installed copy of the original pty.
type upstream struct {
	node string // the node binary
	cli  string // .../dist/cli.js
}

// needUpstream finds the upstream install or skips the test (fails it when
// PTY_COMPAT_REQUIRED=1, so CI cannot pass by silently skipping).
func needUpstream(t *testing.T) *upstream {
	t.Helper()
	dir := os.Getenv("PTY_COMPAT_DIR")
	if dir == "" {
		dir = "/tmp/pty-upstream"
	}
	pkg := filepath.Join(dir, "node_modules", "@myobie", "pty")
	missing := func(why string) *upstream {
		msg := "upstream pty " + upstreamVersion + " is not installed (" + why + "); run test/compat/install-upstream.sh"
		if os.Getenv("PTY_COMPAT_REQUIRED") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
		return nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return missing("no node on PATH")
	}
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		return missing("no " + pkg)
	}
	var p struct{ Version string }
	if json.Unmarshal(b, &p) != nil || p.Version != upstreamVersion {
		return missing("found version " + p.Version + " in " + pkg)
	}
	// On macOS node-pty ships a prebuilt addon; elsewhere it is built.
	addon := filepath.Join(dir, "node_modules", "node-pty", "build", "Release", "pty.node")
	if _, err := os.Stat(addon); err != nil && runtime.GOOS != "darwin" {
		return missing("node-pty's addon was not built: no " + addon)
	}
	return &upstream{node: node, cli: filepath.Join(pkg, "dist", "cli.js")}
}

// env is the environment for upstream commands against root: 0.10.0
// knows only PTY_SESSION_DIR.
func (u *upstream) env(t *testing.T, root string) []string {
	return append(testutil.Env(t, root), "PTY_SESSION_DIR="+root, "PTY_ROOT_LEGACY_SILENT=1")
}

func (u *upstream) command(t *testing.T, root string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(u.node, append([]string{u.cli}, args...)...)
	cmd.Env = u.env(t, root)
	cmd.Dir = root
	return cmd
}

// run runs "upstream-pty args..." and waits.
func (u *upstream) run(t *testing.T, root string, args ...string) testutil.Result {
	t.Helper()
	return testutil.RunCmd(t, u.command(t, root, args...))
}

func (u *upstream) mustRun(t *testing.T, root string, args ...string) testutil.Result {
	t.Helper()
	r := u.run(t, root, args...)
	if r.Code != 0 {
		t.Fatalf("upstream pty %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// start runs upstream's "run -d --name id args..." (0.10.0's --name is
// the id). Its CLI gives the daemon 3 s to listen, which a loaded machine
// (node loading xterm.js) can miss; it then SIGTERMs the daemon and fails.
// That is upstream's limit, not what is under test, so retry.
func (u *upstream) start(t *testing.T, root, id string, args ...string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		r := u.run(t, root, append([]string{"run", "-d", "--name", id}, args...)...)
		if r.Code == 0 && strings.Contains(r.Stdout, `Session "`+id+`" created.`) {
			return
		}
		if attempt == 3 || !strings.Contains(r.Stderr, "Timeout waiting") {
			t.Fatalf("upstream pty run -d --name %s %v: exit %d\nstdout: %s\nstderr: %s", id, args, r.Code, r.Stdout, r.Stderr)
		}
		t.Logf("upstream run -d: its daemon missed its 3 s start limit (attempt %d), retrying", attempt)
		testutil.WaitFor(t, 10*time.Second, "upstream's timed-out daemon to stop", func() bool {
			_, err := os.Stat(layout.At(root).Paths(id).Sock())
			pid := layout.At(root).Pid(id)
			return os.IsNotExist(err) || (pid > 0 && !proc.Alive(pid))
		})
	}
}

// ours runs our pty with the working directory in root, like upstream's.
func ours(t *testing.T, root string, args ...string) testutil.Result {
	t.Helper()
	cmd := testutil.Command(t, root, "", args...)
	cmd.Dir = root
	return testutil.RunCmd(t, cmd)
}

func oursMust(t *testing.T, root string, args ...string) testutil.Result {
	t.Helper()
	r := ours(t, root, args...)
	if r.Code != 0 {
		t.Fatalf("pty %v: exit %d\nstdout: %s\nstderr: %s", args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// catProgram prints a coloured READY, then echoes every line it reads: a
// screen that depends only on what was typed.
var catProgram = []string{"sh", "-c", `printf '\033[1;31mREADY\033[0m plain\n'; exec cat`}

// plainLines is the screen text without trailing blank lines. The two
// daemons differ there (see docs/compat.md), and nothing else may.

// waitScreen polls peek (through the given runner) until its plain screen
// is want.
func waitScreen(t *testing.T, peek func() testutil.Result, want []string, what string) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("%s: the screen %q", what, want), func() (bool, string) {
		r := peek()
		ok := r.Code == 0 && strings.Join(testutil.PlainLines(r.Stdout), "\n") == strings.Join(want, "\n")
		return ok, fmt.Sprintf("%q (exit %d, %s)", r.Stdout, r.Code, strings.TrimSpace(r.Stderr))
	})
}

// metaJSON reads a session's metadata file as a generic object, the way a
// third-party tool (or the other implementation) would.
func metaJSON(t *testing.T, root, id string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(layout.At(root).Paths(id).Meta())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s.json is not JSON: %v\n%s", id, err, b)
	}
	return m
}

// addField adds a field neither implementation knows to a session's
// metadata, as a newer writer would, under our locks (our daemon may be
// writing the file too).
func addField(t *testing.T, root, id, key string, value any) {
	t.Helper()
	raw, err := json.Marshal(value)
	if err != nil {
		t.Fatal(err)
	}
	_, err = layout.At(root).Update(id, func(m *layout.Metadata) ([]layout.Event, error) {
		if m.Extra == nil {
			m.Extra = map[string]json.RawMessage{}
		}
		m.Extra[key] = raw
		return nil, nil
	})
	if err != nil {
		t.Fatalf("add %s to %s: %v", key, id, err)
	}
}

// listEntry is one element of "pty list --json", in either implementation.
type listEntry struct {
	Name        string            `json:"name"`
	Status      string            `json:"status"`
	Pid         *int              `json:"pid"`
	Command     string            `json:"command"`
	Cwd         string            `json:"cwd"`
	CreatedAt   string            `json:"createdAt"`
	ExitCode    *int              `json:"exitCode"`
	ExitedAt    *string           `json:"exitedAt"`
	Tags        map[string]string `json:"tags"`
	DisplayName *string           `json:"displayName"`
}

func parseList(t *testing.T, who, out string) map[string]listEntry {
	t.Helper()
	var l []listEntry
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%s list --json is not a JSON array: %v\n%s", who, err, out)
	}
	m := map[string]listEntry{}
	for _, e := range l {
		m[e.Name] = e
	}
	return m
}

// eventTypes is the sequence of types in a session's log, read by our
// parser.
func eventTypes(t *testing.T, root, id string) []string {
	t.Helper()
	evs, err := layout.At(root).Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.Type)
	}
	return types
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// firstCell replays output on a tall emulator, as a terminal would show it
// (the tty turns LF into CRLF), and returns the cell where text first
// starts. The upstream client ends with a move to the bottom row and a
// newline, which would scroll the top line away: that part is cut.
func firstCell(output, text string) term.Cell {
	output, _, _ = strings.Cut(output, "\x1b[999;1H")
	s := term.New(100, 80, term.Options{})
	s.Write([]byte(strings.ReplaceAll(output, "\n", "\r\n")))
	for row, l := range s.Lines(false) {
		if col := strings.Index(l, text); col >= 0 {
			return s.Cell(row, len([]rune(l[:col])))
		}
	}
	return term.Cell{}
}

// compact is JSON without insignificant space, for comparing values the
// other side may have re-indented.
func compact(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// side is one implementation's command line.
type side struct {
	name string
	run  func(t *testing.T, args ...string) testutil.Result
}

func (s side) must(t *testing.T, args ...string) testutil.Result {
	t.Helper()
	r := s.run(t, args...)
	if r.Code != 0 {
		t.Fatalf("%s pty %v: exit %d\nstdout: %s\nstderr: %s", s.name, args, r.Code, r.Stdout, r.Stderr)
	}
	return r
}

func sides(t *testing.T, up *upstream, root string) (our, their side) {
	return side{"our", func(t *testing.T, args ...string) testutil.Result { t.Helper(); return ours(t, root, args...) }},
		side{"upstream", func(t *testing.T, args ...string) testutil.Result { t.Helper(); return up.run(t, root, args...) }}
}

// exchangeMetadata has each side write state, a display name and a user
// event on session id, and the other side read them back.
func exchangeMetadata(t *testing.T, root, id string, a, b side) {
	t.Helper()
	for _, w := range []struct{ writer, reader side }{{a, b}, {b, a}} {
		key, name, typ := w.writer.name+"-key", w.writer.name+"-name", "user."+w.writer.name
		w.writer.must(t, "state", "set", id, key, `{"by":["`+w.writer.name+`"]}`)
		if got := compact([]byte(w.reader.must(t, "state", "get", id, key).Stdout)); got != `{"by":["`+w.writer.name+`"]}` {
			t.Errorf("%s state get of %s's value: %s", w.reader.name, w.writer.name, got)
		}
		w.writer.must(t, "rename", id, name)
		if got := strings.TrimSpace(w.reader.must(t, "rename", "--show", id).Stdout); got != name {
			t.Errorf("%s rename --show after %s's rename: %q", w.reader.name, w.writer.name, got)
		}
		w.writer.must(t, "emit", id, typ, "--json", `{"n":1}`, "--text", "hi")
		lines := strings.Split(strings.TrimSpace(w.reader.must(t, "events", "--recent", "--json", id).Stdout), "\n")
		var e struct {
			Session, Type, Text string
			Data                map[string]int
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil || e.Session != id || e.Type != typ ||
			e.Text != "hi" || e.Data["n"] != 1 {
			t.Errorf("%s reads %s's emitted event as %s (%v)", w.reader.name, w.writer.name, lines[len(lines)-1], err)
		}
	}
	types := eventTypes(t, root, id)
	for _, want := range []string{layout.EventStateSet, layout.EventDisplayNameChange, "user." + a.name, "user." + b.name} {
		if !contains(types, want) {
			t.Errorf("the log as we read it lacks %s: %v", want, types)
		}
	}
}
