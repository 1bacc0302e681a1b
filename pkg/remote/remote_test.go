package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/cmd/remoteserve"
)

// Every shell a host may log in with reads the quoted words back as
// they were.
func TestShellQuoteInRealShells(t *testing.T) {
	words := []string{"a;b", "it's", `"dq"`, "sp ace", "new\nline", "$(echo no)", "`echo no`", `back\slash`, `\\`, `\'`, "", "*", "$HOME", "-x", "!x", "~", "a#b", "{a,b}", "é ü"}
	var want strings.Builder
	for _, w := range words {
		want.WriteString("<" + w + ">")
	}
	ran := 0
	for _, sh := range []string{"sh", "dash", "bash", "zsh", "fish", "ksh"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		ran++
		line := ShellQuote(append([]string{"printf", "<%s>"}, words...)...)
		out, err := exec.Command(path, "-c", line).Output()
		if err != nil || string(out) != want.String() {
			t.Errorf("%s -c %q: %v\n got %q\nwant %q", sh, line, err, out, want.String())
		}
	}
	if ran == 0 {
		t.Skip("no shell")
	}
}

func TestResolve(t *testing.T) {
	cfg := Config{Hosts: map[string]Entry{"dev": {SSH: "ssh://me@dev.example.com:2222", Pty: "/opt/pty"}, "peer": {Fabric: "laptop"}}}
	for _, c := range []struct {
		in   string
		want Target
		err  bool
	}{
		{in: "host", want: Target{Label: "host", SSH: "host", Pty: "pty"}},
		{in: "me@host", want: Target{Label: "me@host", SSH: "me@host", Pty: "pty"}},
		{in: "ssh://me@host:2200", want: Target{Label: "ssh://me@host:2200", SSH: "me@host", Port: 2200, Pty: "pty"}},
		{in: "ssh://[::1]:22", want: Target{Label: "ssh://[::1]:22", SSH: "::1", Port: 22, Pty: "pty"}},
		{in: "dev", want: Target{Label: "dev", SSH: "me@dev.example.com", Port: 2222, Pty: "/opt/pty"}},
		{in: "peer", want: Target{Label: "peer", Fabric: "laptop", Pty: "pty"}},
		{in: "-oProxyCommand=x", err: true},
		{in: "ssh://me:pw@host", err: true},
		{in: "http://host", err: true},
		{in: "ssh://host:99999", err: true},
		{in: "a b", err: true},
	} {
		got, err := Resolve(c.in, cfg)
		if (err != nil) != c.err || !c.err && got != c.want {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v (error: %v)", c.in, got, err, c.want, c.err)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return dir
		}
		return ""
	}
	if c, err := LoadConfig(env); err != nil || len(c.Names) != 0 {
		t.Fatalf("no file: %+v %v", c, err)
	}
	os.MkdirAll(filepath.Join(dir, "pty"), 0o700)
	write := func(s string) { os.WriteFile(filepath.Join(dir, "pty", "remotes.toml"), []byte(s), 0o600) }
	write("[zed]\nssh = \"z\"\n[alpha]\nfabric = \"a\"\n")
	c, err := LoadConfig(env)
	if err != nil || strings.Join(c.Names, ",") != "zed,alpha" {
		t.Fatalf("order: %+v %v", c, err)
	}
	for _, bad := range []string{"[x]\n", "[x]\nssh = \"a\"\nfabric = \"b\"\n", "[x]\nssh = \"-oX\"\n", "[x\n", "[x]\nssh = \"ssh://u:p@h\"\n"} {
		write(bad)
		if _, err := LoadConfig(env); err == nil || !strings.Contains(err.Error(), "remotes.toml") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestControlDirIsPrivateAndShort(t *testing.T) {
	long := "/tmp/" + strings.Repeat("d", 80)
	base, err := os.MkdirTemp("", "cd") // t.TempDir's names are too long for a socket path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	env := func(k string) string {
		switch k {
		case "XDG_RUNTIME_DIR":
			return long
		case "XDG_CACHE_HOME":
			return base
		}
		return ""
	}
	d, err := controlDir(env)
	if err != nil || d != filepath.Join(base, "pty", "ssh") {
		t.Fatalf("controlDir = %q, %v", d, err)
	}
	os.Chmod(d, 0o755)
	if d, err = controlDir(env); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// The words HostWord leaves as they are, the encoded arguments among
// them, are read back as written by every shell a host may log in with.
func TestHostWordInRealShells(t *testing.T) {
	enc, err := remoteserve.EncodeArgs([]string{"run", "--", "it's", "a\nb", "$(x)", "!x", `\`})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"plain", "a-b_c.d/e:f,g+h@i%j=k", "--run=" + enc, "/opt/pty/bin/pty-remote-serve", "x=1", "-x"}
	var want strings.Builder
	for _, w := range words {
		if HostWord(w) != w {
			t.Fatalf("HostWord(%q) = %q, want it as it is", w, HostWord(w))
		}
		want.WriteString(w + ",")
	}
	line := strings.Join(append([]string{"printf", "%s,"}, words...), " ")
	ran := 0
	for _, sh := range []string{"sh", "dash", "bash", "zsh", "fish", "ksh", "tcsh", "csh"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		ran++
		out, err := exec.Command(path, "-c", line).Output()
		if err != nil || string(out) != want.String() {
			t.Errorf("%s -c %q: %v\n got %q\nwant %q", sh, line, err, out, want.String())
		}
	}
	if ran == 0 {
		t.Skip("no shell")
	}
	for _, w := range []string{"=x", "%x", "a b", "a'b", "", "~", "a*"} {
		if HostWord(w) == w {
			t.Errorf("HostWord(%q) left it as it is", w)
		}
	}
}

// FindRow names the row a route to REF reaches, by the host's rules: the
// id, then a display name, then a unique prefix of an id, then of a
// display name; an ambiguous REF names no row, and says how many match.
func TestFindRow(t *testing.T) {
	rows := []Row{{Name: "web1", DisplayName: "api"}, {Name: "web2", DisplayName: "web1x"},
		{Name: "db", DisplayName: "apiserver"}, {Name: "job", DisplayName: "job-a"}, {Name: "cron", DisplayName: "job-b"}}
	for ref, want := range map[string]string{ // "": none, "*": several
		"web1":  "web1", // the id before a display name's prefix
		"api":   "web1", // a display name before another's prefix
		"apis":  "db",   // a display name's prefix
		"d":     "db",   // an id's prefix
		"web":   "*",    // two ids begin so
		"web1x": "web2",
		"job":   "job", // the id, though display names begin with it
		"job-":  "*",   // two display names begin so
		"cr":    "cron",
		"x":     "",
		"":      "",
	} {
		r, n := FindRow(rows, ref)
		switch {
		case want == "*" && n < 2, want == "" && n != 0, want != "*" && want != "" && (n != 1 || r.Name != want):
			t.Errorf("FindRow(%q) = %q, %d matches; want %q", ref, r.Name, n, want)
		}
	}
}
