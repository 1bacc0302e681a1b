package completion

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// fakeSource has made-up sessions and plugins, and the real commands'
// flags, asked of the binaries built from cmd/.
type fakeSource struct {
	roots map[string][]Candidate
	bin   string
}

func (f fakeSource) Sessions(root string) []Candidate { return f.roots[root] }
func (fakeSource) Plugins() []Candidate               { return []Candidate{{"zz-plugin", "plugin"}} }
func (fakeSource) Root() string                       { return "/default" }
func (f fakeSource) Flags(cmd string) []Flag {
	return Describe(filepath.Join(f.bin, "pty-"+cmd), nil)
}

func newFake(t *testing.T) fakeSource {
	return fakeSource{bin: testutil.BinDir(t), roots: map[string][]Candidate{
		"/default": {{"abcd2345", "web: npm run dev"}, {"web", "session abcd2345"}, {"xyz23456", "sleep 9"}},
		"/other":   {{"other123", ""}},
	}}
}

func vals(cs []Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
}

func TestComplete(t *testing.T) {
	fake := newFake(t)
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
		{[]string{"peek", "-"}, []string{"--detach-key", "-f", "--follow", "--full", "--plain", "--root", "-t", "--timeout", "--wait", "--help"}, NoFiles},
		{[]string{"peek", "--"}, []string{"--detach-key", "--follow", "--full", "--plain", "--root", "--timeout", "--wait", "--help"}, NoFiles},
		{[]string{"peek", "-t", "5", ""}, []string{"abcd2345", "web", "xyz23456"}, NoFiles},
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
	fake := newFake(t)
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

// TestEveryCommandDescribesItsFlags: every built-in command answers
// completion's question with its flags, and they are the flags its
// --help lists, with the same arity.
func TestEveryCommandDescribesItsFlags(t *testing.T) {
	root := testutil.Root(t)
	bin := testutil.BinDir(t)
	// "  --name VALUE    usage", "  -d    usage" or "  -f, --follow  usage": a
	// value takes one upper-case placeholder after a single space
	// (pkg/cli's format).
	flagLine := regexp.MustCompile(`^  (-[^\s,]+(?:, -[^\s,]+)*)( [A-Z][A-Z0-9_=.,|]*)?(?:\s{2,}|$)`)
	for _, c := range Commands {
		flags := Describe(filepath.Join(bin, "pty-"+c.Name), testutil.Env(t, root))
		if len(flags) == 0 {
			t.Errorf("pty-%s does not describe its flags", c.Name)
			continue
		}
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
				for _, n := range strings.Split(m[1], ", ") {
					help[strings.TrimLeft(n, "-")] = m[2] != ""
				}
			}
		}
		described := map[string]bool{}
		for _, f := range flags {
			// A flag --help leaves out of its Flags list (cli's Hide)
			// is still parsed and completed; its text must say where
			// it applies.
			if _, listed := help[f.Name]; !listed && strings.Contains(r.Stdout, "--"+f.Name) {
				continue
			}
			described[f.Name] = f.Takes
		}
		if !reflect.DeepEqual(help, described) {
			t.Errorf("pty %s: --help flags %v, described %v", c.Name, sortedFlags(help), sortedFlags(described))
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
		{"pty peek --", []string{"--follow", "--timeout", "--wait", "--plain"}, nil},
	}
	// Every name of every flag of every command's flag set, as typed.
	for _, c := range Commands {
		want := []string{"--help"}
		for _, f := range Describe(filepath.Join(testutil.BinDir(t), "pty-"+c.Name), env) {
			if len(f.Name) == 1 {
				want = append(want, "-"+f.Name)
			} else {
				want = append(want, "--"+f.Name)
			}
		}
		if len(want) == 1 {
			t.Fatalf("pty-%s describes no flags", c.Name)
		}
		checks = append(checks, check{"pty " + c.Name + " -", want, nil})
	}

	t.Run("bash", func(t *testing.T) {
		if _, err := exec.LookPath("bash"); err != nil {
			testutil.MissingTool(t, "bash")
		}
		for _, c := range checks {
			// As bash sets them for TAB at the end of the line; the
			// script reads the line itself (COMP_WORDS splits at = and
			// keeps the quotes).
			words := strings.Split(c.line, " ")
			script := `source <(pty completions bash) || exit 1
complete -p pty >/dev/null || exit 1
COMP_WORDS=(` + quoteAll(words) + `)
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE='` + c.line + `'
COMP_POINT=${#COMP_LINE}
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
		// One zsh for all the lines: starting one and its compinit is
		// most of the cost.
		args := []string{"-f", harness}
		for _, c := range checks {
			args = append(args, c.line)
		}
		got := make([][]string, len(checks))
		n := -1
		for _, w := range strings.Fields(runShell(t, env, dir, "zsh", args...)) {
			if k, ok := strings.CutPrefix(w, "LINE:"); ok {
				n, _ = strconv.Atoi(k)
				continue
			}
			if n >= 0 && n < len(got) {
				// zsh shows directories with their trailing slash.
				got[n] = append(got[n], strings.TrimSuffix(w, "/"))
			}
		}
		for i, c := range checks {
			checkOffered(t, "zsh", c.line, got[i], c.want, c.not)
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
