package listing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/pkg/layout"
)

var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func sess(id string, st layout.Status, created time.Duration, mod func(*layout.Metadata)) layout.Session {
	m := &layout.Metadata{
		Command:        "/bin/sleep",
		Args:           []string{"100"},
		DisplayCommand: "sleep 100",
		Cwd:            "/home/u/src",
		CreatedAt:      layout.FormatTime(now.Add(-created)),
	}
	if mod != nil {
		mod(m)
	}
	s := layout.Session{ID: id, Meta: m, Status: st}
	if st == layout.Running {
		s.Pid = 4242
	}
	return s
}

func exited(code int, ago time.Duration) func(*layout.Metadata) {
	return func(m *layout.Metadata) {
		m.ExitCode = &code
		m.ExitedAt = layout.FormatTime(now.Add(-ago))
	}
}

func TestFilterComposes(t *testing.T) {
	all := []layout.Session{
		sess("a", layout.Running, time.Hour, func(m *layout.Metadata) { m.Tags = map[string]string{"team": "x", "env": "dev"} }),
		sess("b", layout.Running, 10*time.Minute, func(m *layout.Metadata) { m.Tags = map[string]string{"team": "x"} }),
		sess("c", layout.Exited, 3*24*time.Hour, exited(0, 2*time.Minute)),
		sess("d", layout.Vanished, 5*24*time.Hour, nil),
	}
	ids := func(f Filter) string {
		var out []string
		for _, s := range Select(all, f, now) {
			out = append(out, s.ID)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		f    Filter
		want string
	}{
		{Filter{}, "a,b,c,d"},
		{Filter{Tags: [][2]string{{"team", "x"}}}, "a,b"},
		{Filter{Tags: [][2]string{{"team", "x"}, {"env", "dev"}}}, "a"},
		{Filter{Status: layout.Running}, "a,b"},
		{Filter{Status: layout.Vanished}, "d"},
		// c exited 2 minutes ago: its age is from exitedAt, not createdAt.
		{Filter{OlderThan: 30 * time.Minute}, "a,d"},
		{Filter{NewerThan: 30 * time.Minute}, "b,c"},
		{Filter{Status: layout.Running, OlderThan: 30 * time.Minute, Tags: [][2]string{{"team", "x"}}}, "a"},
	}
	for _, c := range cases {
		if got := ids(c.f); got != c.want {
			t.Errorf("filter %+v = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestSortByDisplayName(t *testing.T) {
	name := func(n string) func(*layout.Metadata) { return func(m *layout.Metadata) { m.DisplayName = &n } }
	ss := []layout.Session{
		sess("zz", layout.Running, time.Minute, name("alpha")),
		sess("bb", layout.Running, time.Minute, nil),
		sess("aa", layout.Running, time.Minute, name("zeta")),
		sess("cc", layout.Running, time.Minute, name("alpha")),
	}
	Sort(ss)
	var got []string
	for _, s := range ss {
		got = append(got, s.ID)
	}
	if strings.Join(got, ",") != "cc,zz,bb,aa" {
		t.Errorf("order = %v", got)
	}
}

func TestJSONShape(t *testing.T) {
	dn := "web"
	ss := []layout.Session{
		sess("r1", layout.Running, time.Minute, func(m *layout.Metadata) { m.DisplayName = &dn; m.Tags = map[string]string{"k": "v"} }),
		sess("e1", layout.Exited, time.Hour, exited(3, time.Minute)),
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, ss); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	r, e := got[0], got[1]
	for _, k := range []string{"name", "status", "pid", "command", "cwd", "createdAt", "exitCode", "exitedAt", "tags", "displayName"} {
		if _, ok := r[k]; !ok {
			t.Errorf("running entry lacks %q: %v", k, r)
		}
	}
	if r["pid"] != float64(4242) || r["exitCode"] != nil || r["exitedAt"] != nil || r["command"] != "sleep 100" || r["displayName"] != "web" {
		t.Errorf("running entry = %v", r)
	}
	if _, ok := e["tags"]; ok {
		t.Errorf("exited entry without tags has a tags field: %v", e)
	}
	if _, ok := e["displayName"]; ok {
		t.Errorf("entry without display name has one: %v", e)
	}
	if e["pid"] != nil || e["exitCode"] != float64(3) || e["exitedAt"] == nil || e["status"] != "exited" {
		t.Errorf("exited entry = %v", e)
	}
	buf.Reset()
	WriteJSON(&buf, nil)
	if strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("empty JSON = %q", buf.String())
	}
}

func TestSummary(t *testing.T) {
	dn := "old"
	ss := []layout.Session{
		sess("a", layout.Running, time.Hour, nil),
		sess("b", layout.Exited, 10*24*time.Hour, func(m *layout.Metadata) { exited(0, 5*24*time.Hour)(m); m.DisplayName = &dn }),
		sess("c", layout.Vanished, time.Minute, nil),
	}
	sum := Summarize(ss, now)
	if sum.Total != 3 || sum.ByStatus != (Counts{1, 1, 1}) {
		t.Errorf("counts = %+v", sum)
	}
	if sum.Oldest == nil || sum.Oldest.Name != "b" || sum.Oldest.AgeSeconds != 5*24*3600 || sum.Oldest.DisplayName == nil {
		t.Errorf("oldest = %+v", sum.Oldest)
	}
	if sum.Newest == nil || sum.Newest.Name != "c" || sum.Newest.AgeSeconds != 60 {
		t.Errorf("newest = %+v", sum.Newest)
	}
	var buf bytes.Buffer
	WriteSummaryJSON(&buf, Summarize(nil, now))
	var m map[string]any
	json.Unmarshal(buf.Bytes(), &m)
	if m["oldest"] != nil || m["newest"] != nil || m["total"] != float64(0) {
		t.Errorf("empty summary = %s", buf.String())
	}
	if bs, _ := m["byStatus"].(map[string]any); len(bs) != 3 {
		t.Errorf("empty summary byStatus = %v", m["byStatus"])
	}
}

func TestText(t *testing.T) {
	dn := "my-web"
	ss := []layout.Session{
		sess("r1", layout.Running, 5*time.Minute, func(m *layout.Metadata) {
			m.DisplayName = &dn
			m.Tags = map[string]string{"team": "x", "strategy": "permanent", "ptyfile": "/a/pty.toml", ":l1-ab": "1"}
		}),
		sess("f1", layout.Running, time.Minute, func(m *layout.Metadata) {
			m.Tags = map[string]string{"strategy": "permanent", "strategy.status": "flapping"}
		}),
		sess("e1", layout.Exited, time.Hour, exited(2, 3*time.Hour)),
		sess("v1", layout.Vanished, 2*time.Hour, nil),
	}
	Sort(ss)
	st := Style{Home: "/home/u", Now: now}
	var buf bytes.Buffer
	WriteText(&buf, ss, st, "No sessions.")
	out := buf.String()
	for _, want := range []string{"Running (2):", "Exited (1):", "Vanished (no exit record — killed or crashed) (1):",
		"my-web", "~/src", "sleep 100", "#team=x", "[permanent]", "[flapping]", "exit 2, 3h ago", "up 5m"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "#strategy") || strings.Contains(out, "#ptyfile") || strings.Contains(out, "#:l1") {
		t.Errorf("reserved tags shown without --tags:\n%s", out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("colour without Color:\n%q", out)
	}
	f1 := lineWith(out, "f1")
	if strings.Contains(f1, "[permanent]") {
		t.Errorf("flapping session also marked permanent: %q", f1)
	}
	if strings.Index(out, "Running") > strings.Index(out, "Exited") || strings.Index(out, "Exited") > strings.Index(out, "Vanished") {
		t.Errorf("sections out of order:\n%s", out)
	}

	buf.Reset()
	st.ShowTags, st.Color = true, true
	WriteText(&buf, ss, st, "No sessions.")
	out = buf.String()
	for _, want := range []string{"#strategy=permanent", "#ptyfile=/a/pty.toml", "#:l1-ab=1", yellow + "Vanished", red + "[flapping]"} {
		if !strings.Contains(out, want) {
			t.Errorf("--tags colour text lacks %q:\n%q", want, out)
		}
	}

	buf.Reset()
	WriteText(&buf, nil, st, "No sessions.")
	if buf.String() != "No sessions.\n" {
		t.Errorf("empty = %q", buf.String())
	}
}

// An end by a signal is shown by the signal's name, not as 128+N.
func TestTextNamesTheSignalThatEndedASession(t *testing.T) {
	ss := []layout.Session{
		sess("hup", layout.Exited, time.Hour, func(m *layout.Metadata) {
			exited(129, time.Minute)(m)
			sig := 1
			m.Signal = &sig
		}),
		sess("kill", layout.Exited, time.Hour, func(m *layout.Metadata) {
			exited(137, time.Minute)(m)
			sig := 9
			m.Signal = &sig
		}),
		sess("code", layout.Exited, time.Hour, exited(137, time.Minute)),
	}
	var buf bytes.Buffer
	WriteText(&buf, ss, Style{Now: now}, "No sessions.")
	out := buf.String()
	for id, want := range map[string]string{"hup": "killed (SIGHUP), 1m ago", "kill": "killed (SIGKILL), 1m ago", "code": "exit 137, 1m ago"} {
		if l := lineWith(out, "  "+id+" "); !strings.Contains(l, want) {
			t.Errorf("%s: %q lacks %q", id, l, want)
		}
	}
}

func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func TestTildePath(t *testing.T) {
	for in, want := range map[string]string{"/home/u": "~", "/home/u/x": "~/x", "/home/uu/x": "/home/uu/x", "/tmp": "/tmp"} {
		if got := TildePath(in, "/home/u"); got != want {
			t.Errorf("TildePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain é":         "plain é",
		"a\x1b]2;x\x07b":  `a\x1b]2;x\ab`,
		"\u009b31m":       `\u009b31m`,
		"bad\xffbyte":     `bad\xffbyte`,
		"tab\there\u2028": `tab\there\u2028`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
