package completion

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

type fakeSource struct{ roots map[string][]Candidate }

func (f fakeSource) Sessions(root string) []Candidate { return f.roots[root] }
func (fakeSource) Plugins() []Candidate               { return []Candidate{{"zz-plugin", "plugin"}} }
func (fakeSource) Root() string                       { return "/default" }

var fake = fakeSource{roots: map[string][]Candidate{
	"/default": {{"abcd2345", "web: npm run dev"}, {"web", "session abcd2345"}, {"xyz23456", "sleep 9"}},
	"/other":   {{"other123", ""}},
}}

func vals(cs []Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
}

func TestComplete(t *testing.T) {
	cases := []struct {
		words []string
		want  []string
		dir   Directive
	}{
		{[]string{"at"}, []string{"attach"}, NoFiles},
		{[]string{"z"}, []string{"zz-plugin"}, NoFiles},
		{[]string{"l"}, []string{"list", "ls"}, NoFiles},
		{[]string{"--r"}, []string{"--root"}, NoFiles},
		{[]string{"--root", ""}, []string{}, Dirs},
		{[]string{"attach", ""}, []string{"abcd2345", "web", "xyz23456"}, NoFiles},
		{[]string{"a", "w"}, []string{"web"}, NoFiles},
		{[]string{"--root", "/other", "kill", ""}, []string{"other123"}, NoFiles},
		{[]string{"--root=/other", "kill", ""}, []string{"other123"}, NoFiles},
		{[]string{"kill", "--root", "/other", ""}, []string{"other123"}, NoFiles},
		{[]string{"kill", "--root=/other", ""}, []string{"other123"}, NoFiles},
		{[]string{"kill", "--root", ""}, []string{}, Dirs},
		{[]string{"attach", "web", ""}, []string{}, NoFiles}, // one REF only
		{[]string{"attach", "-r", "x"}, []string{"xyz23456"}, NoFiles},
		{[]string{"attach", "--no"}, []string{"--no-restart"}, NoFiles},
		{[]string{"peek", "-"}, []string{"-f", "--plain", "--full", "--wait", "-t", "--detach-key", "--root", "--help"}, NoFiles},
		{[]string{"peek", "--wait", ""}, []string{}, NoFiles}, // free text
		{[]string{"peek", "--wait", "ready", "a"}, []string{"abcd2345"}, NoFiles},
		{[]string{"run", "--cwd", ""}, []string{}, Dirs},
		{[]string{"run", "--name", "x", "--i"}, []string{"--id", "--isolate-env"}, NoFiles},
		{[]string{"run", "--name", "x", "--", ""}, []string{}, Programs},
		{[]string{"run", "--", "ls", ""}, []string{}, Files},
		{[]string{"list", "--status", ""}, []string{"running", "exited", "vanished"}, NoFiles},
		{[]string{"events", "--wait", "session_e"}, []string{"session_exit", "session_exec"}, NoFiles},
		{[]string{"completions", ""}, []string{"bash", "zsh", "fish"}, NoFiles},
		{[]string{"state", "s"}, []string{"set"}, NoFiles},
		{[]string{"state", "get", "x"}, []string{"xyz23456"}, NoFiles},
		{[]string{"metadata", "patch", "--id", "a"}, []string{"abcd2345"}, NoFiles},
		{[]string{"tag-multi", "abcd2345", "x"}, []string{"xyz23456"}, NoFiles},
		{[]string{"send", "web", ""}, []string{}, NoFiles},
		{[]string{"zz-plugin", ""}, []string{}, Files},
	}
	for _, c := range cases {
		got, d := Complete(c.words, fake)
		if !reflect.DeepEqual(vals(got), c.want) || d != c.dir {
			t.Errorf("%q: got %q directive %d, want %q directive %d", c.words, vals(got), d, c.want, c.dir)
		}
	}
}

func TestUpCompletesSessionNamesOfPtyToml(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pty.toml"), []byte("[sessions.web]\ncommand=\"x\"\n[sessions.worker]\ncommand=\"y\"\n"), 0o644)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(filepath.Dir(dir))
	got, d := Complete([]string{"up", filepath.Base(dir), "w"}, fake)
	if !reflect.DeepEqual(vals(got), []string{"web", "worker"}) || d != Dirs {
		t.Fatalf("up DIR w: %q %d", vals(got), d)
	}
	os.Chdir(dir)
	got, _ = Complete([]string{"down", "wo"}, fake)
	if !reflect.DeepEqual(vals(got), []string{"worker"}) {
		t.Fatalf("down wo: %q", vals(got))
	}
}

func TestWriteFormat(t *testing.T) {
	var b strings.Builder
	Write(&b, []Candidate{{"a", "desc\twith tab"}, {"b", ""}}, Dirs)
	if b.String() != "a\tdesc with tab\nb\n:2\n" {
		t.Fatalf("%q", b.String())
	}
}

// TestTableMatchesHelp keeps the table honest: every command's flags, as
// its --help prints them, must be in the table, with the same arity.
func TestTableMatchesHelp(t *testing.T) {
	root := testutil.Root(t)
	// "  --name VALUE    usage" or "  -d    usage": a value takes one
	// upper-case placeholder after a single space (pkg/cli's format).
	flagLine := regexp.MustCompile(`^  --?([^\s]+)( [A-Z][A-Z0-9_=.,|]*)?(?:\s{2,}|$)`)
	for _, c := range Commands {
		r := testutil.Run(t, root, c.Name, "--help")
		if r.Code != 0 {
			t.Errorf("pty %s --help: exit %d %s", c.Name, r.Code, r.Stderr)
			continue
		}
		help := map[string]bool{} // name -> takes a value
		inFlags := false
		for _, l := range strings.Split(r.Stdout, "\n") {
			if l == "Flags:" {
				inFlags = true
				continue
			}
			if m := flagLine.FindStringSubmatch(l); inFlags && m != nil {
				help[m[1]] = m[2] != ""
			}
		}
		table := map[string]bool{}
		for _, f := range c.Flags {
			table[f.Name] = f.Takes
		}
		if c.Name == "ui" && len(help) == 0 {
			continue // the stand-in built without -tags ptyui has no flags
		}
		if !reflect.DeepEqual(help, table) {
			t.Errorf("pty %s: --help flags %v, table %v", c.Name, sortedFlags(help), sortedFlags(table))
		}
	}
}

func sortedFlags(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			k += "=V"
		}
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shellEnv makes a registry with two real sessions and a plugin on PATH,
// for the shells' own completion machinery to query.
func shellEnv(t *testing.T) (env []string, ids []string) {
	t.Helper()
	root := testutil.Root(t)
	for _, name := range []string{"alpha", "beta"} {
		r := testutil.MustRun(t, root, "run", "-d", "--name", name, "--", "sleep", "300")
		id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(r.Stdout), `Session "`), `" created.`)
		ids = append(ids, id)
	}
	plugins := t.TempDir()
	os.WriteFile(filepath.Join(plugins, "pty-zzplug"), []byte("#!/bin/sh\n"), 0o755)
	env = testutil.Env(t, root)
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = kv + ":" + plugins
		}
	}
	return append(env, "HOME="+t.TempDir()), ids
}

func runShell(t *testing.T, env []string, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

func TestShells(t *testing.T) {
	env, ids := shellEnv(t)
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "subdir"), 0o755)
	type check struct {
		line string   // what was typed before TAB
		want []string // must all be offered
		not  []string // must not be offered
	}
	checks := []check{
		{"pty at", []string{"attach"}, nil},
		{"pty zz", []string{"zzplug"}, nil},
		{"pty attach ", []string{ids[0], ids[1], "alpha", "beta"}, nil},
		{"pty kill al", []string{"alpha"}, []string{"beta"}},
		{"pty run --cwd su", []string{"subdir"}, nil},
		{"pty list --sta", []string{"--status"}, nil},
		{"pty completions ", []string{"bash", "zsh", "fish"}, nil},
	}

	t.Run("bash", func(t *testing.T) {
		if _, err := exec.LookPath("bash"); err != nil {
			testutil.MissingTool(t, "bash")
		}
		for _, c := range checks {
			words := strings.Split(c.line, " ")
			script := `source <(pty completions bash) || exit 1
complete -p pty >/dev/null || exit 1
COMP_WORDS=(` + quoteAll(words) + `)
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_pty
printf '%s\n' "${COMPREPLY[@]}"`
			got := strings.Fields(runShell(t, env, dir, "bash", "-c", script))
			checkOffered(t, "bash", c.line, got, c.want, c.not)
		}
	})
	t.Run("zsh", func(t *testing.T) {
		if _, err := exec.LookPath("zsh"); err != nil {
			testutil.MissingTool(t, "zsh")
		}
		harness, _ := filepath.Abs("testdata/zcap.zsh")
		for _, c := range checks {
			got := strings.Fields(runShell(t, env, dir, "zsh", "-f", harness, c.line))
			// zsh shows directories with their trailing slash.
			for i, g := range got {
				got[i] = strings.TrimSuffix(g, "/")
			}
			checkOffered(t, "zsh", c.line, got, c.want, c.not)
		}
	})
	t.Run("fish", func(t *testing.T) {
		if _, err := exec.LookPath("fish"); err != nil {
			testutil.MissingTool(t, "fish")
		}
		for _, c := range checks {
			out := runShell(t, env, dir, "fish", "--no-config", "-c", "source (pty completions fish | psub); complete -C '"+c.line+"'")
			var got []string
			for _, l := range strings.Split(out, "\n") {
				v, _, _ := strings.Cut(l, "\t")
				got = append(got, strings.TrimSuffix(v, "/"))
			}
			checkOffered(t, "fish", c.line, got, c.want, c.not)
		}
	})
}

func quoteAll(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, " ")
}

func checkOffered(t *testing.T, shell, line string, got, want, not []string) {
	t.Helper()
	has := map[string]bool{}
	for _, g := range got {
		has[g] = true
	}
	for _, w := range want {
		if !has[w] {
			t.Errorf("%s: %q offers %q, missing %q", shell, line, got, w)
		}
	}
	for _, n := range not {
		if has[n] {
			t.Errorf("%s: %q offers %q, which it should not", shell, line, n)
		}
	}
}

func TestCompletionsCommand(t *testing.T) {
	root := testutil.Root(t)
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := testutil.MustRun(t, root, "completions", sh)
		if !strings.Contains(r.Stdout, "pty completions --complete") {
			t.Errorf("%s script:\n%s", sh, r.Stdout)
		}
	}
	r := testutil.Run(t, root, "completions", "tcsh")
	if r.Code != 2 || !strings.Contains(r.Stderr, `unknown shell "tcsh": choose bash, zsh or fish`) {
		t.Fatalf("bad shell: %d %q", r.Code, r.Stderr)
	}
	r = testutil.Run(t, root, "completions")
	if r.Code != 2 || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("no shell: %d %q", r.Code, r.Stderr)
	}
}
