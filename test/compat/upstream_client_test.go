package compat

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/term"
)

// TestUpstreamClientsOnOurDaemon drives a session started by our
// `pty run -d` with the original pty's list, peek, send, tag, stats,
// events and attach, and checks what each side then sees.
func TestUpstreamClientsOnOurDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	const id = "go1"
	oursMust(t, root, append([]string{"run", "-d", "--id", id, "--name", "go one",
		"--tag", "team=core", "--tag", "keep=true", "--rows", "24", "--cols", "80", "--"}, catProgram...)...)
	ready := []string{"READY plain"}
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, ready, "our peek")
	meta, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("list", func(t *testing.T) {
		l := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout)
		e, ok := l[id]
		if !ok {
			t.Fatalf("upstream list --json has no %s: %v", id, l)
		}
		pid := layout.At(root).Pid(id)
		if e.Status != "running" || e.Pid == nil || *e.Pid != pid {
			t.Errorf("upstream sees status %q pid %v, want running with our daemon's pid %d", e.Status, e.Pid, pid)
		}
		if e.Command != meta.DisplayCommand || e.Cwd != meta.Cwd || e.CreatedAt != meta.CreatedAt {
			t.Errorf("upstream sees command %q cwd %q createdAt %q, want %q %q %q",
				e.Command, e.Cwd, e.CreatedAt, meta.DisplayCommand, meta.Cwd, meta.CreatedAt)
		}
		if e.DisplayName == nil || *e.DisplayName != "go one" || e.Tags["team"] != "core" {
			t.Errorf("upstream sees displayName %v tags %v", e.DisplayName, e.Tags)
		}
		if e.ExitCode != nil || e.ExitedAt != nil {
			t.Errorf("upstream sees an exit on a running session: %v %v", e.ExitCode, e.ExitedAt)
		}
		text := up.mustRun(t, root, "list").Stdout
		if !strings.Contains(text, "Active sessions") || !strings.Contains(text, "("+id+")") {
			t.Errorf("upstream list does not show %s as active:\n%s", id, text)
		}
	})

	t.Run("peek", func(t *testing.T) {
		// Byte for byte what it prints for its own daemon.
		r := up.mustRun(t, root, "peek", "--plain", id)
		if want := strings.Join(ready, "\n") + "\n"; r.Stdout != want {
			t.Errorf("upstream peek --plain = %q, want %q", r.Stdout, want)
		}
		// The coloured peek must carry the attributes: replay it on an
		// emulator, as a terminal would show it (the tty turns LF into
		// CRLF), and look at the cells.
		r = up.mustRun(t, root, "peek", id)
		if c := firstCell(r.Stdout, "READY"); c.R != 'R' || c.Attr&term.AttrBold == 0 || c.Fg != term.BasicColor(1) {
			t.Errorf("upstream peek: READY starts with %q attr %v fg %v, want a bold red R; output %q", c.R, c.Attr, c.Fg, r.Stdout)
		}
		if c := firstCell(r.Stdout, "plain"); c.R != 'p' || c.Attr != 0 || c.Fg != 0 {
			t.Errorf("upstream peek: plain starts with %q attr %v fg %v, want no attributes", c.R, c.Attr, c.Fg)
		}
	})

	typed := append(append([]string{}, ready...), "hello", "hello")
	t.Run("send", func(t *testing.T) {
		r := up.run(t, root, "send", id, "hello\r")
		if r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
			t.Fatalf("upstream send: exit %d stdout %q stderr %q", r.Code, r.Stdout, r.Stderr)
		}
		waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, typed, "after upstream send")
	})

	t.Run("tag", func(t *testing.T) {
		addField(t, root, id, "futureField", map[string]any{"n": 1})
		up.mustRun(t, root, "tag", id, "color=blue", "--rm", "team")
		out := oursMust(t, root, "tag", id).Stdout
		if !strings.Contains(out, "color=blue") || strings.Contains(out, "team") {
			t.Errorf("our tag after upstream's: %q", out)
		}
		m, err := layout.At(root).Metadata(id)
		if err != nil {
			t.Fatalf("upstream's rewrite does not parse here: %v", err)
		}
		if m.Generation != meta.Generation || m.DaemonPid != meta.DaemonPid || m.Rows != 24 {
			t.Errorf("upstream's tag lost our fields: generation %q daemonPid %d rows %d", m.Generation, m.DaemonPid, m.Rows)
		}
		if compact(m.Extra["futureField"]) != `{"n":1}` {
			t.Errorf("upstream's tag lost an unknown field: %s", m.Extra["futureField"])
		}
		evs, err := layout.At(root).Events(id)
		if err != nil {
			t.Fatal(err)
		}
		last := evs[len(evs)-1]
		prev, _ := json.Marshal(last.Fields["previous"])
		value, _ := json.Marshal(last.Fields["value"])
		if last.Type != layout.EventTagsChange || last.Session != id ||
			string(prev) != `{"keep":"true","team":"core"}` || string(value) != `{"color":"blue","keep":"true"}` {
			t.Errorf("upstream's tags_change reads here as %+v", last)
		}
		// And the other way: our change shows in upstream's tag listing.
		oursMust(t, root, "tag", id, "size=xl")
		if out := up.mustRun(t, root, "tag", id).Stdout; !strings.Contains(out, "size=xl") || !strings.Contains(out, "color=blue") {
			t.Errorf("upstream tag after ours: %q", out)
		}
	})

	t.Run("events", func(t *testing.T) {
		out := up.mustRun(t, root, "events", "--recent", "--json", id).Stdout
		var types []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Session, Type, Ts string }
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Session != id || e.Ts == "" {
				t.Fatalf("upstream events --json line %q: %v", line, err)
			}
			types = append(types, e.Type)
		}
		if len(types) < 3 || types[0] != layout.EventSessionStart || types[len(types)-1] != layout.EventTagsChange {
			t.Errorf("upstream reads our event log as %v", types)
		}
		text := up.mustRun(t, root, "events", "--recent", id).Stdout
		if !strings.Contains(text, "started") || !strings.Contains(text, "size=xl") {
			t.Errorf("upstream events --recent:\n%s", text)
		}
	})

	t.Run("state-rename-emit", func(t *testing.T) {
		our, their := sides(t, up, root)
		exchangeMetadata(t, root, id, our, their)
	})

	t.Run("stats", func(t *testing.T) {
		r := up.mustRun(t, root, "stats", "--json", id)
		var s struct {
			Terminal struct{ Cols, Rows int }
			Process  struct {
				Alive bool
				Pid   int
			}
			Daemon struct{ Pid int }
		}
		if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
			t.Fatalf("upstream stats --json: %v\n%s", err, r.Stdout)
		}
		if s.Terminal.Cols != 80 || s.Terminal.Rows != 24 || !s.Process.Alive || s.Daemon.Pid != layout.At(root).Pid(id) {
			t.Errorf("upstream stats: %+v", s)
		}
		if text := up.mustRun(t, root, "stats", id).Stdout; !strings.Contains(text, "80x24") {
			t.Errorf("upstream stats:\n%s", text)
		}
	})

	t.Run("attach", func(t *testing.T) {
		// A smaller terminal than the session's: the session must follow
		// the client's ATTACH size while it is attached.
		u := testutil.StartTerminal(t, up.command(t, root, "attach", id), 20, 70)
		u.WaitLines(t, typed, "upstream attach redraws our session")
		if c := u.Cell(0, 0); c.Attr&term.AttrBold == 0 || c.Fg != term.BasicColor(1) {
			t.Errorf("upstream attach: cell 0,0 attr %v fg %v, want bold red", c.Attr, c.Fg)
		}
		testutil.WaitFor(t, 5*time.Second, "the session to take the client's size", func() bool {
			return strings.Contains(ours(t, root, "stats", id).Stdout, "70x20")
		})
		u.Write(t, "typed\r")
		u.WaitLines(t, append(append([]string{}, typed...), "typed", "typed"), "typing through upstream attach")
		u.Write(t, "\x1c")
		u.WaitOutput(t, "[detached]")
		if code := u.Exit(t); code != 0 {
			t.Errorf("upstream attach exited %d after Ctrl+\\, want 0", code)
		}
		l := parseList(t, "our", oursMust(t, root, "list", "--json").Stdout)
		if l[id].Status != "running" {
			t.Errorf("after detaching the session is %q", l[id].Status)
		}
	})

	t.Run("exit", func(t *testing.T) {
		// Ctrl+D ends cat: our daemon records the exit, and upstream reads it.
		up.mustRun(t, root, "send", id, "\x04")
		testutil.WaitFor(t, 10*time.Second, "the session to exit", func() bool {
			e := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout)[id]
			return e.Status == "exited"
		})
		e := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout)[id]
		if e.ExitCode == nil || *e.ExitCode != 0 || e.ExitedAt == nil {
			t.Errorf("upstream sees exit code %v at %v, want 0", e.ExitCode, e.ExitedAt)
		}
		r := up.mustRun(t, root, "peek", "--plain", id)
		if !strings.Contains(r.Stdout, "READY plain") || !strings.Contains(r.Stdout, "typed") {
			t.Errorf("upstream peek of the ended session (our lastLines) = %q", r.Stdout)
		}
		out := up.mustRun(t, root, "events", "--recent", "--json", id).Stdout
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var last struct {
			Type     string
			ExitCode *int
		}
		json.Unmarshal([]byte(lines[len(lines)-1]), &last)
		if last.Type != layout.EventSessionExit || last.ExitCode == nil || *last.ExitCode != 0 {
			t.Errorf("upstream reads our last event as %s", lines[len(lines)-1])
		}
	})
}
