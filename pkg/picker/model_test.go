package picker

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/ptyorg/pty/pkg/layout"
)

// key builds the tea.KeyMsg a terminal would produce for a key name as
// bubbletea spells it ("left", "ctrl+w", "alt+b") or for typed text.
func key(s string) tea.KeyMsg {
	named := map[string]tea.KeyType{
		"left": tea.KeyLeft, "right": tea.KeyRight, "up": tea.KeyUp, "down": tea.KeyDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "enter": tea.KeyEnter, "esc": tea.KeyEsc,
		"backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "tab": tea.KeyTab,
		"ctrl+a": tea.KeyCtrlA, "ctrl+e": tea.KeyCtrlE, "ctrl+u": tea.KeyCtrlU,
		"ctrl+k": tea.KeyCtrlK, "ctrl+w": tea.KeyCtrlW, "ctrl+c": tea.KeyCtrlC,
		"ctrl+n": tea.KeyCtrlN, "ctrl+p": tea.KeyCtrlP, "ctrl+d": tea.KeyCtrlD,
		"ctrl+left": tea.KeyCtrlLeft, "ctrl+right": tea.KeyCtrlRight, " ": tea.KeySpace,
	}
	if t, ok := named[s]; ok {
		return tea.KeyMsg{Type: t}
	}
	switch s {
	case "alt+left":
		return tea.KeyMsg{Type: tea.KeyLeft, Alt: true}
	case "alt+right":
		return tea.KeyMsg{Type: tea.KeyRight, Alt: true}
	case "alt+backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace, Alt: true}
	}
	if r, ok := strings.CutPrefix(s, "alt+"); ok {
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(r), Alt: true}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestKeyHelperMatchesBubbleteaNames(t *testing.T) {
	for _, k := range []string{"left", "alt+left", "alt+b", "ctrl+w", "alt+backspace", "ctrl+left", "home"} {
		if got := key(k).String(); got != k {
			t.Errorf("key(%q).String() = %q", k, got)
		}
	}
}

func TestEditorKeys(t *testing.T) {
	// Each case starts from text with the cursor at '|' and expects the
	// result in the same notation.
	cases := []struct{ start, key, want string }{
		{"abc|", "left", "ab|c"},
		{"|abc", "left", "|abc"},
		{"a|bc", "right", "ab|c"},
		{"abc|", "right", "abc|"},
		{"ab|c", "home", "|abc"},
		{"ab|c", "ctrl+a", "|abc"},
		{"a|bc", "end", "abc|"},
		{"a|bc", "ctrl+e", "abc|"},
		{"foo bar-baz|", "alt+b", "foo bar-|baz"},
		{"foo bar-|baz", "alt+b", "foo |bar-baz"},
		{"foo bar|", "alt+left", "foo |bar"},
		{"foo bar|", "ctrl+left", "foo |bar"},
		{"|foo bar", "alt+f", "foo| bar"},
		{"foo| bar", "alt+right", "foo bar|"},
		{"ab|c", "backspace", "a|c"},
		{"|abc", "backspace", "|abc"},
		{"a|bc", "delete", "a|c"},
		{"abc|", "delete", "abc|"},
		{"foo ba|r", "ctrl+u", "|r"},
		{"foo ba|r", "ctrl+k", "foo ba|"},
		{"foo ~/src/app|", "ctrl+w", "foo |"},
		{"foo bar  |", "ctrl+w", "foo |"},
		{"foo ~/src/app|", "alt+backspace", "foo ~/src/|"},
		{"ab|", "x", "abx|"},
		{"a|b", "xy", "axy|b"},
		{"a|b", " ", "a |b"},
		{"a|b", "alt+x", "a|b"}, // not an editing key: nothing happens
	}
	for _, c := range cases {
		var e editor
		i := strings.IndexByte(c.start, '|')
		e.text = []rune(c.start[:i] + c.start[i+1:])
		e.cur = len([]rune(c.start[:i]))
		e.Key(key(c.key))
		got := string(e.text[:e.cur]) + "|" + string(e.text[e.cur:])
		if got != c.want {
			t.Errorf("%q + %s = %q, want %q", c.start, c.key, got, c.want)
		}
	}
}

func TestEditorPasteIsOneLine(t *testing.T) {
	var e editor
	e.Key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\nb\tc\x07"), Paste: true})
	if e.String() != "a b c" {
		t.Fatalf("paste = %q", e.String())
	}
}

func TestMatch(t *testing.T) {
	one := func(text string) Fields { return Fields{Names: []string{text}} }
	match := []struct {
		q string
		f Fields
	}{
		{"", one("anything")},
		{"wbs", one("web-server")},
		{"WEB", one("my WEB app")},
		{"web api", one("api web")},
		{"srcapp", Fields{Dir: "~/src/app"}},
		{"role=api", Fields{Tags: []string{"x=1", "role=api"}}},
		{"web sleep", Fields{Names: []string{"web1"}, Command: "sleep 9"}}, // each term in its own text
	}
	for _, c := range match {
		if _, ok := Match(c.q, c.f); !ok {
			t.Errorf("%q should match %+v", c.q, c.f)
		}
	}
	miss := []struct {
		q string
		f Fields
	}{
		{"bew", one("web")},
		{"WEB", one("web")}, // smart case: upper case in the query is deliberate
		{"web zzz", one("web")},
		// a, p, i taken from three texts is not a match.
		{"api", Fields{Names: []string{"db1", "postgres"}, Command: "postgres -D ./pgdata", Tags: []string{"tier=primary"}, Dir: "~/data/pg"}},
	}
	for _, c := range miss {
		if _, ok := Match(c.q, c.f); ok {
			t.Errorf("%q should not match %+v", c.q, c.f)
		}
	}
	word, _ := Match("web", one("web-server ~/x sleep"))
	scattered, _ := Match("web", one("w1 ~/e/b sleep"))
	if word <= scattered {
		t.Errorf("a word match (%d) should beat a scattered one (%d)", word, scattered)
	}
	// Contiguous in a name, then the command, then a tag, then the
	// directory, then scattered: whatever the scores within each.
	ranked := []Fields{
		{Names: []string{"cobweb"}},
		{Command: "sh -c cobweb"},
		{Tags: []string{"site=cobweb"}},
		{Dir: "~/cobweb"},
		{Names: []string{"w-e-b"}},
		{Command: "w -e -b"},
	}
	prev := 0
	for i, f := range ranked {
		s, ok := Match("web", f)
		if !ok || (i > 0 && s >= prev) {
			t.Errorf("%+v scores %d (ok %v), want below %d", f, s, ok, prev)
		}
		prev = s
	}
}

func sess(id, name string, st layout.Status, cwd, cmd string, tags map[string]string) layout.Session {
	m := &layout.Metadata{Command: cmd, DisplayCommand: cmd, Cwd: cwd, Tags: tags,
		CreatedAt: layout.FormatTime(time.Now().Add(-5 * time.Minute))}
	if name != "" {
		m.DisplayName = &name
	}
	if st == layout.Exited {
		code := 3
		m.ExitCode = &code
		m.ExitedAt = layout.FormatTime(time.Now().Add(-2 * time.Minute))
	}
	return layout.Session{ID: id, Meta: m, Status: st}
}

func fixture() []layout.Session {
	return Scope([]layout.Session{
		sess("aaaa1111", "web", layout.Running, "/home/u/shop", "npm run dev", map[string]string{"role": "front", "strategy": "permanent"}),
		sess("bbbb2222", "db", layout.Running, "/home/u/shop", "postgres", nil),
		sess("cccc3333", "build", layout.Exited, "/tmp/x", "make -j8", nil),
		sess("dddd4444", "", layout.Vanished, "/home/u", "bash", map[string]string{"strategy.status": "flapping"}),
	}, nil)
}

func newModel() *Model {
	m := New(Options{Root: "/nonexistent", Home: "/home/u", Cwd: "/home/u", Shell: "/bin/bash"})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.SetSessions(fixture())
	return m
}

func send(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(key(k))
	}
	return cmd
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestListOrderAndView(t *testing.T) {
	m := newModel()
	if got := m.Visible(); !reflect.DeepEqual(got, []string{"bbbb2222", "aaaa1111", "cccc3333", "dddd4444"}) {
		t.Fatalf("order = %v (running by name, then exited, then vanished)", got)
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{
		"● aaaa1111  web", "~/shop", "npm run dev", "up 5m", "[permanent]", "#role=front",
		"○ cccc3333", "exit 3, 2m ago",
		"✕ dddd4444", "[flapping]",
		"+ Create new session...", "4 of 4 sessions",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "strategy") {
		t.Errorf("reserved tags shown:\n%s", view)
	}
	if lines := strings.Split(m.View(), "\n"); len(lines) != 20 {
		t.Errorf("view has %d lines for a 20-line terminal", len(lines))
	}
}

func TestTypingFiltersAndResetsSelection(t *testing.T) {
	m := newModel()
	send(m, "down", "down")
	if m.Selected() != "cccc3333" {
		t.Fatalf("selected %q after two downs", m.Selected())
	}
	send(m, "s", "h", "o", "p")
	if got := m.Visible(); !reflect.DeepEqual(got, []string{"bbbb2222", "aaaa1111"}) {
		t.Fatalf("filter shop shows %v", got)
	}
	if m.Selected() != "bbbb2222" {
		t.Fatalf("typing should select the first match, got %q", m.Selected())
	}
	send(m, "down")
	if m.Selected() != "aaaa1111" {
		t.Fatalf("selected %q", m.Selected())
	}
	// Moving the text cursor is not an edit: the selection stays.
	send(m, "left", "home", "alt+f", "ctrl+e")
	if m.Selected() != "aaaa1111" || m.Filter() != "shop" {
		t.Fatalf("cursor keys changed selection %q or filter %q", m.Selected(), m.Filter())
	}
	// The cursor is drawn where it is.
	send(m, "left", "left")
	if line := strings.Split(m.View(), "\n")[1]; !strings.Contains(line, "> sh") || !strings.Contains(ansi.Strip(line), "> shop") {
		t.Fatalf("filter line %q", line)
	}
	send(m, "backspace")
	if m.Filter() != "sop" || m.Selected() != "bbbb2222" {
		t.Fatalf("after backspace: filter %q selected %q", m.Filter(), m.Selected())
	}
	// Tags and commands match too.
	send(m, "ctrl+u", "ctrl+k")
	send(m, "r", "o", "l", "e", "=", "f")
	if got := m.Visible(); !reflect.DeepEqual(got, []string{"aaaa1111"}) {
		t.Fatalf("tag filter shows %v", got)
	}
}

func TestRefreshKeepsSelectionAndFilter(t *testing.T) {
	m := newModel()
	send(m, "down")
	if m.Selected() != "aaaa1111" {
		t.Fatalf("selected %q", m.Selected())
	}
	// A new session sorts before the selected one: the selection follows
	// the session, not the row number.
	list := append(fixture(), sess("0000zzzz", "alpha", layout.Running, "/", "top", nil))
	m.Update(sessionsMsg{list: Scope(list, nil)})
	if m.Selected() != "aaaa1111" {
		t.Fatalf("refresh moved the selection to %q", m.Selected())
	}
	send(m, "u")
	m.Update(sessionsMsg{list: Scope(list, nil)})
	if m.Filter() != "u" {
		t.Fatalf("refresh lost the filter: %q", m.Filter())
	}
	// The selected session goes away: the row that takes its place is
	// selected, not the top.
	send(m, "backspace", "down", "down")
	sel := m.Selected()
	var rest []layout.Session
	for _, s := range list {
		if s.ID != sel {
			rest = append(rest, s)
		}
	}
	m.Update(sessionsMsg{list: Scope(rest, nil)})
	if m.Selected() == sel || m.sel != 2 {
		t.Fatalf("after %s vanished: selected %q at %d", sel, m.Selected(), m.sel)
	}
}

func TestQuitKeys(t *testing.T) {
	m := newModel()
	if !isQuit(send(m, "q")) {
		t.Fatal("q on an empty filter should quit")
	}
	m = newModel()
	if !isQuit(send(m, "esc")) {
		t.Fatal("esc on an empty filter should quit")
	}
	m = newModel()
	if isQuit(send(m, "x", "q")) || m.Filter() != "xq" {
		t.Fatalf("q with a filter should type: %q", m.Filter())
	}
	if isQuit(send(m, "esc")) || m.Filter() != "" {
		t.Fatalf("esc with a filter should clear it: %q", m.Filter())
	}
	if !isQuit(send(m, "esc")) {
		t.Fatal("second esc should quit")
	}
	m = newModel()
	if !isQuit(send(m, "a", "ctrl+c")) {
		t.Fatal("ctrl+c always quits")
	}
}

func TestCreateRowAndPrompts(t *testing.T) {
	m := newModel()
	send(m, "up") // already at the top: stays
	for range 10 {
		send(m, "down")
	}
	if m.Selected() != "" {
		t.Fatalf("bottom row should be the create row, got %q", m.Selected())
	}
	send(m, "enter")
	if m.mode != modeNewDir || m.dir.String() != "~" {
		t.Fatalf("mode %v dir %q", m.mode, m.dir.String())
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Directory: ~") {
		t.Fatalf("view:\n%s", v)
	}
	send(m, "ctrl+u", "/", "n", "o", "p", "e", "enter")
	if m.mode != modeNewDir || !strings.Contains(m.message, "does not exist") {
		t.Fatalf("bad dir accepted: mode %v message %q", m.mode, m.message)
	}
	send(m, "ctrl+u", "/", "enter")
	if m.mode != modeNewCmd || m.cmd.String() != "/bin/bash" {
		t.Fatalf("mode %v cmd %q", m.mode, m.cmd.String())
	}
	send(m, "esc")
	if m.mode != modeList {
		t.Fatal("esc should go back to the list")
	}
	m = New(Options{PreselectNew: true})
	m.SetSessions(fixture())
	if m.Selected() != "" || m.items[m.sel].sess != nil {
		t.Fatalf("--preselect-new selected %q", m.Selected())
	}
}

func TestScopeByTags(t *testing.T) {
	got := Scope(fixture(), map[string]string{"role": "front"})
	if len(got) != 1 || got[0].ID != "aaaa1111" {
		t.Fatalf("Scope = %v", got)
	}
}

func TestNewSessionCommand(t *testing.T) {
	cases := []struct {
		line, cmd string
		args      []string
	}{
		{"", "/bin/zsh", nil},
		{"npm run dev", "npm", []string{"run", "dev"}},
		{"make && ./app", "/bin/sh", []string{"-c", "make && ./app"}},
		{"echo $HOME", "/bin/sh", []string{"-c", "echo $HOME"}},
	}
	for _, c := range cases {
		cmd, args := NewSessionCommand(c.line, "/bin/zsh")
		if cmd != c.cmd || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%q → %q %q", c.line, cmd, args)
		}
	}
}

// Status, age and markers are what the picker is for: at any usual width
// they stay whole, and the command column gives way first.
func TestNarrowWindowKeepsStatusAndMarkers(t *testing.T) {
	for _, width := range []int{100, 80} {
		m := New(Options{Root: "/nonexistent", Home: "/home/u", Cwd: "/home/u", Shell: "/bin/bash"})
		m.Update(tea.WindowSizeMsg{Width: width, Height: 20})
		m.SetSessions(Scope([]layout.Session{
			sess("aaaa1111", "a long display name", layout.Running, "/home/u/projects/a-rather-long-directory-name", "sleep 600 && echo a very long command line indeed", map[string]string{"strategy": "permanent"}),
			sess("dddd4444", "", layout.Vanished, "/home/u", "bash", map[string]string{"strategy.status": "flapping"}),
		}, nil))
		view := ansi.Strip(m.View())
		for _, want := range []string{"up 5m", "[permanent]", "[flapping]", "aaaa1111", "sleep"} {
			if !strings.Contains(view, want) {
				t.Errorf("width %d: view lacks %q:\n%s", width, want, view)
			}
		}
		for _, l := range strings.Split(view, "\n") {
			if n := ansi.StringWidth(l); n > width {
				t.Errorf("width %d: line of %d cells: %q", width, n, l)
			}
		}
	}
}

// Names, tags, paths and commands from a record written by another tool
// are shown escaped: a bidi override would reverse the row after it, a
// zero-width space would make one name pass for another.
func TestViewEscapesInvisibleCharacters(t *testing.T) {
	m := New(Options{Root: "/nonexistent", Home: "/home/u", Cwd: "/home/u", Shell: "/bin/bash"})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 20})
	m.SetSessions([]layout.Session{
		sess("eeee5555", "exe.\u202etxt", layout.Running, "/home/u/a\u200bb", "echo \u2066x", map[string]string{"k": "\ufeffv"}),
	})
	view := ansi.Strip(m.View())
	for _, want := range []string{`exe.\u202etxt`, `a\u200bb`, `echo \u2066x`, `#k=\ufeffv`} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %s:\n%s", want, view)
		}
	}
	if strings.ContainsAny(view, "\u202e\u200b\ufeff\u2066") {
		t.Errorf("view shows an invisible character raw:\n%q", view)
	}
}
