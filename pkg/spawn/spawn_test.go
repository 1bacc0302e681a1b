package spawn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyorg/pty/pkg/layout"
)

func TestDefaultDisplayName(t *testing.T) {
	cases := []struct {
		cwd, cmd string
		args     []string
		want     string
	}{
		{"/home/me/proj", "npm", []string{"run", "dev"}, "proj-npm-run"},
		{"/home/me/proj", "/usr/bin/python3", []string{"-u", "server.py"}, "proj-python3-server"},
		{"/home/me/my proj", "vim", nil, "my-proj-vim"},
		{"/", "bash", []string{"this-argument-is-way-too-long-for-a-name"}, "bash"},
	}
	for _, c := range cases {
		if got := DefaultDisplayName(c.cwd, c.cmd, c.args); got != c.want {
			t.Errorf("DefaultDisplayName(%q, %q, %q) = %q, want %q", c.cwd, c.cmd, c.args, got, c.want)
		}
	}
}

func TestPrepareValidates(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Command: "no-such-cmd-xyz"}, "Command not found: no-such-cmd-xyz"},
		{Options{Command: "./nope", Cwd: dir}, "Command not found: ./nope"},
		{Options{Command: "./f", Cwd: dir}, "Command is not executable: ./f"},
		{Options{Command: dir}, "Command is a directory: " + dir},
		{Options{Command: "true", Cwd: filepath.Join(dir, "missing")}, "Working directory does not exist"},
		{Options{Command: "true", Cwd: file}, "Working directory is not a directory"},
		{Options{Command: "true", ID: "a b"}, "session id"},
		{Options{Command: "true", UnsetEnv: []string{"A=B"}}, "--unset-env"},
		{Options{Command: "true", ExtraEnv: map[string]string{"": "x"}}, "environment variable name"},
		{Options{Command: "true", Tags: map[string]string{"": "x"}}, "empty key"},
		{Options{}, "no command"},
		{Options{Command: "sh", Args: []string{"-c", "echo a\x00b"}}, "argument 2 (\"echo a\\x00b\") contains a NUL byte"},
		{Options{Command: "tr\x00ue"}, "the command \"tr\\x00ue\" contains a NUL byte"},
		{Options{Command: "true", Cwd: dir + "\x00"}, "the working directory"},
		{Options{Command: "true", ExtraEnv: map[string]string{"A": "1\x002"}}, "environment variable A contains a NUL byte"},
		{Options{Command: "true", Env: []string{"PATH=/bin:/usr/bin", "B=\x00"}}, "environment entry \"B\" contains a NUL byte"},
	}
	for _, c := range cases {
		if _, err := Prepare(root, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Prepare(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
	cfg, err := Prepare(root, Options{Command: "sh", Args: []string{"-c", "x"}, Cwd: dir})
	if err != nil || !filepath.IsAbs(cfg.Command) || cfg.Rows != 24 || cfg.Cols != 80 || cfg.DisplayCommand != "sh -c x" || len(cfg.ID) != 8 {
		t.Errorf("Prepare = %+v, %v", cfg, err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("Prepare wrote to the root: %v", ents)
	}
}

func TestOptionsFromMetadata(t *testing.T) {
	name := "label"
	m := &layout.Metadata{Command: "/bin/sh", Args: []string{"-c", "x"}, DisplayCommand: "sh -c x", Cwd: "/tmp",
		Tags: map[string]string{"a": "b"}, DisplayName: &name, ExtraEnv: map[string]string{"K": "V"}, UnsetEnv: []string{"U"},
		IsolateEnv: true, Rows: 30, Cols: 100}
	o := OptionsFromMetadata("id1", m)
	if o.ID != "id1" || o.Command != "/bin/sh" || o.Cwd != "/tmp" || *o.DisplayName != "label" || o.Tags["a"] != "b" ||
		o.ExtraEnv["K"] != "V" || o.UnsetEnv[0] != "U" || !o.IsolateEnv || o.Rows != 30 {
		t.Errorf("OptionsFromMetadata = %+v", o)
	}
	m.DisplayName = nil
	if o := OptionsFromMetadata("id1", m); o.DisplayName == nil || *o.DisplayName != "" {
		t.Error("a record without a display name must restart without one")
	}
}
