package compat

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/proto"
	"github.com/ptyorg/pty/pkg/term"
)

// TestOurClientsOnUpstreamDaemon drives a session started by the original
// pty's `run -d` (its node daemon) with our list, peek, send, tag, events,
// stats and attach, and checks what each side then sees.
func TestOurClientsOnUpstreamDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	const id = "up1" // 0.10.0's --name is the session id
	up.start(t, root, id, append([]string{"--tag", "team=core", "--"}, catProgram...)...)
	ready := []string{"READY plain"}
	waitScreen(t, func() testutil.Result { return ours(t, root, "peek", "--plain", id) }, ready, "our peek of an upstream session")
	meta, err := layout.At(root).Metadata(id)
	if err != nil {
		t.Fatalf("upstream's metadata does not parse here: %v", err)
	}
	if meta.DisplayName == nil || meta.Generation != "" {
		t.Fatalf("expected an upstream 0.10.0 record (a display name, no generation): %+v", meta)
	}

	t.Run("list", func(t *testing.T) {
		l := parseList(t, "our", oursMust(t, root, "list", "--json").Stdout)
		e, ok := l[id]
		if !ok {
			t.Fatalf("our list --json has no %s: %v", id, l)
		}
		pid := layout.At(root).Pid(id)
		if e.Status != "running" || e.Pid == nil || *e.Pid != pid {
			t.Errorf("we see status %q pid %v, want running with upstream's daemon pid %d", e.Status, e.Pid, pid)
		}
		if e.Command != meta.DisplayCommand || e.Cwd != root || e.CreatedAt != meta.CreatedAt {
			t.Errorf("we see command %q cwd %q createdAt %q, want %q %q %q",
				e.Command, e.Cwd, e.CreatedAt, meta.DisplayCommand, root, meta.CreatedAt)
		}
		if e.DisplayName == nil || *e.DisplayName != *meta.DisplayName || e.Tags["team"] != "core" || e.ExitCode != nil {
			t.Errorf("we see displayName %v tags %v exitCode %v", e.DisplayName, e.Tags, e.ExitCode)
		}
		if text := oursMust(t, root, "list").Stdout; !strings.Contains(text, "Running (1)") || !strings.Contains(text, id) {
			t.Errorf("our list:\n%s", text)
		}
	})

	t.Run("peek", func(t *testing.T) {
		r := oursMust(t, root, "peek", id)
		if c := firstCell(r.Stdout, "READY"); c.R != 'R' || c.Attr&term.AttrBold == 0 || c.Fg != term.BasicColor(1) {
			t.Errorf("our peek: READY starts with %q attr %v fg %v, want a bold red R; output %q", c.R, c.Attr, c.Fg, r.Stdout)
		}
		if c := firstCell(r.Stdout, "plain"); c.R != 'p' || c.Attr != 0 || c.Fg != 0 {
			t.Errorf("our peek: plain starts with %q attr %v fg %v, want no attributes", c.R, c.Attr, c.Fg)
		}
		r = oursMust(t, root, "peek", "--plain", "--wait", "READY", "-t", "5", id)
		if strings.Join(testutil.PlainLines(r.Stdout), "\n") != "READY plain" {
			t.Errorf("our peek --wait: %q", r.Stdout)
		}
	})

	typed := append(append([]string{}, ready...), "hello", "hello", "hi", "hi")
	t.Run("send", func(t *testing.T) {
		for _, args := range [][]string{
			{"send", id, "hello\r"},
			{"send", id, "--with-delay", "0", "--seq", "hi", "--seq", "key:return"},
		} {
			if r := ours(t, root, args...); r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
				t.Fatalf("our %v: exit %d stdout %q stderr %q", args, r.Code, r.Stdout, r.Stderr)
			}
		}
		waitScreen(t, func() testutil.Result { return up.run(t, root, "peek", "--plain", id) }, typed, "upstream peek after our send")
	})

	t.Run("tag", func(t *testing.T) {
		addField(t, root, id, "futureField", map[string]any{"n": 1})
		oursMust(t, root, "tag", id, "color=blue", "--rm", "team")
		out := up.mustRun(t, root, "tag", id).Stdout
		if !strings.Contains(out, "color=blue") || strings.Contains(out, "team") {
			t.Errorf("upstream tag after ours: %q", out)
		}
		m := metaJSON(t, root, id)
		for _, k := range []string{"command", "args", "displayCommand", "cwd", "createdAt", "displayName"} {
			if _, ok := m[k]; !ok {
				t.Errorf("our tag dropped upstream's %s: %v", k, m)
			}
		}
		if b, _ := json.Marshal(m["futureField"]); string(b) != `{"n":1}` {
			t.Errorf("our tag lost an unknown field: %s", b)
		}
		// Our tags_change reads on upstream's side, after its own session_start.
		lines := strings.Split(strings.TrimSpace(up.mustRun(t, root, "events", "--recent", "--json", id).Stdout), "\n")
		var last struct {
			Session, Type   string
			Previous, Value map[string]string
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Session != id ||
			last.Type != layout.EventTagsChange || last.Previous["team"] != "core" || last.Value["color"] != "blue" {
			t.Errorf("upstream reads our tags_change as %s (%v)", lines[len(lines)-1], err)
		}
		// And the other way: upstream's change shows in our tag listing.
		up.mustRun(t, root, "tag", id, "size=xl")
		if out := oursMust(t, root, "tag", id).Stdout; !strings.Contains(out, "size=xl") || !strings.Contains(out, "color=blue") {
			t.Errorf("our tag after upstream's: %q", out)
		}
	})

	t.Run("events", func(t *testing.T) {
		out := oursMust(t, root, "events", "--recent", "--json", id).Stdout
		var types []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Session, Type, Ts string }
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Session != id || e.Ts == "" {
				t.Fatalf("our events --json line %q: %v", line, err)
			}
			types = append(types, e.Type)
		}
		want := []string{layout.EventSessionStart, layout.EventTagsChange, layout.EventTagsChange}
		if strings.Join(types, " ") != strings.Join(want, " ") {
			t.Errorf("we read upstream's log as %v, want %v", types, want)
		}
		if text := oursMust(t, root, "events", "--recent", id).Stdout; !strings.Contains(text, "session_start") {
			t.Errorf("our events --recent:\n%s", text)
		}
	})

	t.Run("state-rename-emit", func(t *testing.T) {
		our, their := sides(t, up, root)
		exchangeMetadata(t, root, id, our, their)
	})

	t.Run("stats", func(t *testing.T) {
		r := oursMust(t, root, "stats", "--json", id)
		s, err := proto.ParseStatus([]byte(r.Stdout))
		if err != nil {
			t.Fatalf("our stats --json: %v\n%s", err, r.Stdout)
		}
		if s.Terminal.Cols != 80 || s.Terminal.Rows != 24 || !s.Process.Alive || s.Daemon.Pid != layout.At(root).Pid(id) {
			t.Errorf("our stats of upstream's daemon: %+v", s)
		}
		if text := oursMust(t, root, "stats", id).Stdout; !strings.Contains(text, "80x24") {
			t.Errorf("our stats:\n%s", text)
		}
	})

	t.Run("attach", func(t *testing.T) {
		u := testutil.StartTerminal(t, testutil.Command(t, root, "", "attach", id), 20, 70)
		u.WaitLines(t, typed, "our attach redraws upstream's session")
		if c := u.Cell(0, 0); c.Attr&term.AttrBold == 0 || c.Fg != term.BasicColor(1) {
			t.Errorf("our attach: cell 0,0 attr %v fg %v, want bold red", c.Attr, c.Fg)
		}
		testutil.WaitFor(t, 5*time.Second, "upstream's session to take our size", func() bool {
			return strings.Contains(up.run(t, root, "stats", id).Stdout, "70x20")
		})
		u.Write(t, "typed\r")
		u.WaitLines(t, append(append([]string{}, typed...), "typed", "typed"), "typing through our attach")
		u.Write(t, "\x1c")
		u.WaitOutput(t, "[detached]")
		if code := u.Exit(t); code != 0 {
			t.Errorf("our attach exited %d after Ctrl+\\, want 0", code)
		}
		if l := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout); l[id].Status != "running" {
			t.Errorf("after detaching upstream sees the session %q", l[id].Status)
		}
	})

	t.Run("exit", func(t *testing.T) {
		oursMust(t, root, "send", id, "\x04") // Ctrl+D ends cat
		testutil.WaitFor(t, 10*time.Second, "the upstream session to exit", func() bool {
			return parseList(t, "our", oursMust(t, root, "list", "--json").Stdout)[id].Status == "exited"
		})
		e := parseList(t, "our", oursMust(t, root, "list", "--json").Stdout)[id]
		if e.ExitCode == nil || *e.ExitCode != 0 || e.ExitedAt == nil {
			t.Errorf("we see exit code %v at %v, want 0", e.ExitCode, e.ExitedAt)
		}
		r := oursMust(t, root, "peek", "--plain", id)
		if !strings.Contains(r.Stdout, "READY plain") || !strings.Contains(r.Stdout, "typed") {
			t.Errorf("our peek of the ended session (upstream's lastLines) = %q", r.Stdout)
		}
		// Upstream appends session_exit asynchronously, after the metadata.
		testutil.WaitFor(t, 5*time.Second, "upstream's session_exit to read here", func() bool {
			types := eventTypes(t, root, id)
			return types[len(types)-1] == layout.EventSessionExit
		})
		oursMust(t, root, "rm", id)
		if _, err := os.Stat(layout.At(root).Paths(id).Meta()); !os.IsNotExist(err) {
			t.Errorf("our rm left upstream's record: %v", err)
		}
		if l := parseList(t, "upstream", up.mustRun(t, root, "list", "--json").Stdout); len(l) != 0 {
			t.Errorf("upstream still lists %v after our rm", l)
		}
	})
}

// TestOurKillStopsUpstreamDaemon: kill stops the original's daemon and
// keeps its record, which both sides then read as exited.
func TestOurKillStopsUpstreamDaemon(t *testing.T) {
	up := needUpstream(t)
	t.Parallel()
	root := testutil.Root(t)
	up.start(t, root, "up2", "--", "sleep", "600")
	pid := layout.At(root).Pid("up2")
	// gc sweeps stopped sessions: a live upstream one is not stopped.
	if r := oursMust(t, root, "gc"); strings.Contains(r.Stdout, "up2") {
		t.Errorf("our gc acted on a running upstream session: %q", r.Stdout)
	}
	if _, err := os.Stat(layout.At(root).Paths("up2").Meta()); err != nil || !proc.Alive(pid) {
		t.Fatalf("our gc removed a running upstream session (%v) or stopped its daemon", err)
	}
	r := oursMust(t, root, "kill", "up2")
	if !strings.Contains(r.Stdout, `Session "up2" killed.`) {
		t.Errorf("our kill of an upstream session: %q %q", r.Stdout, r.Stderr)
	}
	if proc.Alive(pid) {
		t.Errorf("upstream's daemon %d is still alive after our kill", pid)
	}
	for who, out := range map[string]string{
		"our":      oursMust(t, root, "list", "--json").Stdout,
		"upstream": up.mustRun(t, root, "list", "--json").Stdout,
	} {
		if e := parseList(t, who, out)["up2"]; e.Status != "exited" {
			t.Errorf("after our kill %s list sees %+v, want exited", who, e)
		}
	}
	if r := oursMust(t, root, "gc"); !strings.Contains(r.Stdout, "up2") {
		t.Errorf("our gc did not sweep the stopped upstream session: %q", r.Stdout)
	}
	if _, err := os.Stat(layout.At(root).Paths("up2").Meta()); !os.IsNotExist(err) {
		t.Errorf("after our gc upstream's record is still there: %v", err)
	}
}
