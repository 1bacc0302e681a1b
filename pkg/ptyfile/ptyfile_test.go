package ptyfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/layout"
)

func write(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFull(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, `prefix = "app"

[sessions.web]
command = "npm run dev -- --port $PORT"
cwd = "frontend"
tags = { strategy = "permanent", keep = true, "strategy.idle-days" = 3 }
env = { PORT = "3000" }

[sessions.db]
command = "postgres -D data"
id = "app-db"
display_name = "database"
cwd = "/var/tmp"

[sessions.worker]
command = "sleep 100"
[sessions.worker.env]
QUEUE = "default"
`)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != p || f.Dir != dir || f.Prefix != "app" {
		t.Fatalf("file = %+v", f)
	}
	if got := f.Keys(); !reflect.DeepEqual(got, []string{"web", "db", "worker"}) {
		t.Fatalf("keys in file order: %v", got)
	}
	web, _ := f.Session("web")
	if web.Cwd != filepath.Join(dir, "frontend") || web.DisplayName != "app-web" || web.ID != "" || web.Line != 3 {
		t.Fatalf("web = %+v", web)
	}
	if !reflect.DeepEqual(web.Tags, map[string]string{"strategy": "permanent", "keep": "true", "strategy.idle-days": "3"}) {
		t.Fatalf("web tags = %v", web.Tags)
	}
	db, _ := f.Session("db")
	if db.ID != "app-db" || db.DisplayName != "database" || db.Cwd != "/var/tmp" {
		t.Fatalf("db = %+v", db)
	}
	w, _ := f.Session("worker")
	if w.Cwd != dir || w.Env["QUEUE"] != "default" || w.Line != 15 {
		t.Fatalf("worker = %+v", w)
	}

	l := f.Launch(web)
	want := Launch{
		DisplayName:    "app-web",
		Command:        "/bin/sh",
		Args:           []string{"-c", "npm run dev -- --port $PORT"},
		DisplayCommand: "npm run dev -- --port $PORT",
		Cwd:            filepath.Join(dir, "frontend"),
		ExtraEnv:       map[string]string{"PORT": "3000"},
		Tags: map[string]string{
			"strategy": "permanent", "keep": "true", "strategy.idle-days": "3",
			layout.TagPtyfile: p, layout.TagPtyfileSession: "web", layout.TagPtyfileTags: "keep,strategy,strategy.idle-days",
		},
	}
	if !reflect.DeepEqual(l, want) {
		t.Fatalf("launch:\n got %+v\nwant %+v", l, want)
	}
	if !f.Owns(l.Tags, web) || f.Owns(l.Tags, db) {
		t.Fatal("Owns does not match the identity tags")
	}
}

func TestDefaultNameUsesDirWithoutPrefix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shop")
	os.Mkdir(dir, 0o755)
	f, err := Load(write(t, dir, "[sessions.web]\ncommand = \"x\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Sessions[0].DisplayName != "shop-web" {
		t.Fatalf("display name = %q", f.Sessions[0].DisplayName)
	}
}

func TestErrorsNameFileLineAndField(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"unknown field", "prefix = \"p\"\n\n[sessions.web]\ncommand = \"x\"\ncomand = \"y\"\n",
			`pty.toml:5: sessions.web: unknown field "comand" (did you mean "command"?)`},
		{"missing command", "[sessions.a]\ncommand = \"x\"\n\n[sessions.web]\ncwd = \"x\"\n",
			`pty.toml:4: sessions.web: missing command`},
		{"bad id", "[sessions.web]\ncommand = \"x\"\nid = \"a/b\"\n",
			`pty.toml:3: sessions.web: bad id: session id "a/b" contains '/'`},
		{"duplicate id", "[sessions.a]\ncommand = \"x\"\nid = \"same\"\n[sessions.b]\ncommand = \"y\"\nid = \"same\"\n",
			`pty.toml:4: sessions.b: bad id: "same" is also the id of sessions.a`},
		{"wrong type", "[sessions.web]\ncommand = 3\n",
			`pty.toml:2: sessions.web.command: must be a string, not an integer`},
		{"empty command", "[sessions.web]\ncommand = \"  \"\n",
			`pty.toml:2: sessions.web: command is empty`},
		{"syntax", "[sessions.web]\ncommand = \"x\n",
			`pty.toml:2: invalid TOML:`},
		{"unknown top", "prefx = \"p\"\n[sessions.web]\ncommand = \"x\"\n",
			`pty.toml:1: unknown field "prefx"`},
		{"inline unknown", "[sessions]\nweb = { command = \"x\", bogus = 1 }\n",
			`pty.toml:2: sessions.web: unknown field "bogus"`},
		{"env not string", "[sessions.web]\ncommand = \"x\"\nenv = { PORT = 3000 }\n",
			`pty.toml:3: sessions.web.env: PORT must be a string (quote it: PORT = "3000")`},
		{"reserved tag", "[sessions.web]\ncommand = \"x\"\ntags = { ptyfile = \"x\" }\n",
			`pty.toml:3: sessions.web.tags: tag "ptyfile" is reserved`},
		{"session not a table", "[sessions]\nweb = \"x\"\n",
			`pty.toml:2: sessions.web: must be a table, not a string`},
		{"no sessions", "prefix = \"p\"\n",
			`pty.toml: declares no sessions`},
		{"bad display name", "[sessions.web]\ncommand = \"x\"\ndisplay_name = \" web\"\n",
			`pty.toml:3: sessions.web: bad display_name:`},
		// Values that span lines: the error is on the key's line, and the
		// keys after them keep their own lines.
		{"empty multi-line command", "[sessions.web]\ncommand = \"\"\"\n\n\"\"\"\n",
			`pty.toml:2: sessions.web: command is empty`},
		{"bad multi-line id", "[sessions.a]\ncommand = \"x\"\n[sessions.web]\ncommand = \"x\"\nid = '''\na/b'''\n",
			`pty.toml:5: sessions.web: bad id:`},
		{"empty multi-line cwd", "[sessions.web]\ncommand = \"x\"\ncwd = \"\"\"\n\"\"\"\n",
			`pty.toml:3: sessions.web: cwd is empty`},
		{"after multi-line string", "[sessions.web]\ncommand = \"\"\"\nnpm\nrun\n\"\"\"\nbogus = 1\n",
			`pty.toml:6: sessions.web: unknown field "bogus"`},
		{"multi-line array", "[sessions.web]\ncommand = \"x\"\nargs = [\n  \"a\",\n  \"b\",\n]\nid = \"a/b\"\n",
			`pty.toml:3: sessions.web: unknown field "args"`},
		{"wrong type multi-line array", "[sessions.web]\ncommand = [\n  \"a\",\n]\n",
			`pty.toml:2: sessions.web.command: must be a string, not an array`},
		{"sub-table after multi-line string", "[sessions.a]\ncommand = \"x\"\nenv = { A = \"1\" }\n[sessions.b]\ncommand = \"\"\"\nx\n\"\"\"\n[sessions.a.tags]\nok = [\n  1,\n]\n",
			`pty.toml:9: sessions.a.tags: ok must be a string, not an array`},
		{"NUL in multi-line env value", "[sessions.web]\ncommand = \"x\"\n[sessions.web.env]\nA = \"1\"\nB = \"\"\"\nx\\u0000\n\"\"\"\n",
			`pty.toml:5: sessions.web.env: B contains a NUL byte`},
		{"NUL in command", "[sessions.web]\ncommand = \"a\\u0000b\"\n",
			`pty.toml:2: sessions.web: command contains a NUL byte`},
		{"NUL in cwd", "[sessions.web]\ncommand = \"x\"\ncwd = \"a\\u0000\"\n",
			`pty.toml:3: sessions.web: cwd contains a NUL byte`},
		{"inline table type", "[sessions.web]\ncommand = \"x\"\ntags = { ok = \"1\", bad = 1.5 }\n",
			`pty.toml:3: sessions.web.tags: bad must be a string, not a float`},
		{"multi-line inline table", "[sessions.web]\ncommand = \"x\"\nenv = {\n  A = \"1\",\n  B = 2,\n}\n",
			`pty.toml:5: sessions.web.env: B must be a string (quote it: B = "2")`},
		{"dotted key in session", "[sessions.web]\ncommand = \"x\"\n\ntags.ok = \"1\"\ntags.ptyfile = \"x\"\n",
			`pty.toml:5: sessions.web.tags: tag "ptyfile" is reserved`},
		{"duplicate key", "[sessions.web]\ncommand = \"x\"\n\ncommand = \"y\"\n",
			`pty.toml:4: invalid TOML:`},
		{"duplicate table", "[sessions.web]\ncommand = \"x\"\n[sessions.db]\ncommand = \"y\"\n[sessions.web]\ncwd = \"z\"\n",
			`pty.toml:5: invalid TOML:`},
		{"session from sub-table only", "[sessions.a]\ncommand = \"x\"\n\n[sessions.web.env]\nA = \"1\"\n",
			`pty.toml:4: sessions.web: missing command`},
		{"array of tables", "[sessions.web]\ncommand = \"x\"\n[[sessions.web.tags]]\nx = 1\n",
			`pty.toml:3: sessions.web.tags: must be a table, not an array`},
		{"quoted session key", "[sessions.\"my web\"]\ncommand = \"x\"\ncomand = 1\n",
			`pty.toml:3: sessions."my web": unknown field "comand"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.body)
			wd, _ := os.Getwd()
			os.Chdir(dir)
			defer os.Chdir(wd)
			_, err := Load(FileName)
			if err == nil {
				t.Fatalf("no error for:\n%s", c.body)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error\n got %q\nwant prefix %q", err.Error(), c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), FileName))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

func TestSelect(t *testing.T) {
	f, err := Parse("/x/pty.toml", []byte("[sessions.a]\ncommand=\"1\"\n[sessions.b]\ncommand=\"2\"\n[sessions.c]\ncommand=\"3\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Select([]string{"c", "a"})
	if err != nil || len(got) != 2 || got[0].Key != "a" || got[1].Key != "c" {
		t.Fatalf("Select = %v, %v", got, err)
	}
	if _, err := f.Select([]string{"zz"}); err == nil || !strings.Contains(err.Error(), `declares no session "zz" (it declares: a, b, c)`) {
		t.Fatalf("unknown key error = %v", err)
	}
	all, _ := f.Select(nil)
	if len(all) != 3 {
		t.Fatalf("Select(nil) = %v", all)
	}
}

func TestSyncTags(t *testing.T) {
	current := map[string]string{
		layout.TagPtyfile: "/p/pty.toml", layout.TagPtyfileSession: "web", layout.TagPtyfileTags: "old,port,strategy",
		"old": "1", "port": "3000", "strategy": "permanent", "manual": "mine",
		"strategy.status": "flapping", "strategy.consecutive-fast-fails": "3",
	}
	want := map[string]string{
		layout.TagPtyfile: "/p/pty.toml", layout.TagPtyfileSession: "web", layout.TagPtyfileTags: "port,strategy",
		"port": "4000", "strategy": "permanent",
	}
	next, changes, changed := SyncTags(current, want)
	wantNext := map[string]string{
		layout.TagPtyfile: "/p/pty.toml", layout.TagPtyfileSession: "web", layout.TagPtyfileTags: "port,strategy",
		"port": "4000", "strategy": "permanent", "manual": "mine",
	}
	if !reflect.DeepEqual(next, wantNext) || !changed {
		t.Fatalf("next = %v (changed %v)", next, changed)
	}
	if !reflect.DeepEqual(changes, []string{"-old", "+port=4000"}) {
		t.Fatalf("changes = %v", changes)
	}
	if _, ch, changed := SyncTags(next, want); changed || len(ch) != 0 {
		t.Fatalf("second sync is not a no-op: %v", ch)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "proj")
	os.Mkdir(sub, 0o755)
	write(t, sub, "[sessions.a]\ncommand=\"x\"\n")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)

	p, keys, err := Find([]string{"proj", "a"})
	if err != nil || p != filepath.Join("proj", FileName) || !reflect.DeepEqual(keys, []string{"a"}) {
		t.Fatalf("Find(dir) = %q %v %v", p, keys, err)
	}
	if _, _, err := Find([]string{"a"}); err == nil || !strings.Contains(err.Error(), "no pty.toml in") {
		t.Fatalf("Find without file = %v", err)
	}
	os.Chdir(sub)
	p, keys, err = Find([]string{"a"})
	if err != nil || p != FileName || !reflect.DeepEqual(keys, []string{"a"}) {
		t.Fatalf("Find(name) = %q %v %v", p, keys, err)
	}
}

func TestForSession(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "[sessions.a]\ncommand=\"v1\"\n")
	if _, _, ok, _ := ForSession(map[string]string{"x": "y"}); ok {
		t.Fatal("untagged session reported as from a pty.toml")
	}
	tags := map[string]string{layout.TagPtyfile: p, layout.TagPtyfileSession: "a"}
	write(t, dir, "[sessions.a]\ncommand=\"v2\"\n")
	f, s, ok, err := ForSession(tags)
	if err != nil || !ok || s.Command != "v2" || f.Path != p {
		t.Fatalf("ForSession = %+v %v %v", s, ok, err)
	}
	write(t, dir, "[sessions.b]\ncommand=\"v2\"\n")
	if _, _, ok, err := ForSession(tags); !ok || err == nil {
		t.Fatalf("removed session: ok=%v err=%v", ok, err)
	}
}
