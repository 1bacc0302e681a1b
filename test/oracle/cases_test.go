package oracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func testdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// shell runs a one-shot command and keeps the pane open afterwards: tmux
// closes a pane whose program has exited, pty reaps the session.
func shell(script string) []string {
	return []string{"sh", "-c", script + "; exec sleep 100000"}
}

// lsDir prepares a directory with one entry of each kind ls colours
// differently by default, with fixed sizes, modes and times.
func lsDir(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	d := filepath.Join(base, "d")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(d, 0o755))
	files := map[string]struct {
		mode os.FileMode
		size int
	}{
		"README.md": {0o644, 120}, "run.sh": {0o755, 33}, "a.tar.gz": {0o644, 2048}, "pic.png": {0o644, 5000},
		"song.mp3": {0o644, 77}, "with space.txt": {0o644, 1}, "naïve-文件.txt": {0o644, 9}, "suid": {0o4755, 10},
		"sgid": {0o2755, 11}, "core.c": {0o600, 0},
	}
	for name, f := range files {
		p := filepath.Join(d, name)
		must(os.WriteFile(p, []byte(strings.Repeat("x", f.size)), 0o600))
		must(os.Chmod(p, f.mode))
	}
	for name, mode := range map[string]os.FileMode{"docs": 0o755, "shared": 0o777, "tmpdir": 0o777 | os.ModeSticky, "sticky": 0o755 | os.ModeSticky} {
		p := filepath.Join(d, name)
		must(os.Mkdir(p, 0o755))
		must(os.Chmod(p, mode))
	}
	must(os.Symlink("README.md", filepath.Join(d, "link")))
	must(os.Symlink("nowhere", filepath.Join(d, "dangling")))
	must(os.Symlink("docs", filepath.Join(d, "dirlink")))
	must(syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644))
	mtime := time.Date(2024, 2, 29, 13, 37, 0, 0, time.UTC)
	ents, err := os.ReadDir(d)
	must(err)
	for i, e := range ents {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		ts := mtime.Add(time.Duration(i) * 97 * time.Minute)
		must(os.Chtimes(filepath.Join(d, e.Name()), ts, ts))
	}
	must(os.Chtimes(d, mtime, mtime))
	must(os.Chtimes(base, mtime, mtime))
	return d
}

func TestLsColor(t *testing.T) {
	t.Parallel()
	needTmux(t)
	need(t, "ls", "coreutils")
	d := lsDir(t)
	for _, c := range []struct {
		name       string
		rows, cols int
		args       string
	}{
		{"long", 30, 100, "-la"},
		{"columns-wide", 30, 100, "-C"},
		{"columns-narrow", 24, 41, "-C"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, spec{rows: c.rows, cols: c.cols, dir: d,
				argv: shell("ls --color=always --time-style=+%Y-%m-%d.%H:%M " + c.args + "; echo END")})
			p.check("END", "")
		})
	}
}

// script runs one of the testdata scripts, which get the size as
// arguments and end by printing END.
func script(t *testing.T, name string, rows, cols int) {
	p := start(t, spec{rows: rows, cols: cols, dir: t.TempDir(),
		argv: []string{"sh", testdata(t, name), fmt.Sprint(rows), fmt.Sprint(cols)}})
	p.check("END", "")
}

func TestScrollRegion(t *testing.T) {
	t.Parallel()
	needTmux(t)
	for _, sz := range [][2]int{{30, 100}, {17, 50}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			script(t, "scroll-region.sh", sz[0], sz[1])
		})
	}
}

func TestWideAndCombining(t *testing.T) {
	t.Parallel()
	needTmux(t)
	for _, sz := range [][2]int{{30, 100}, {24, 31}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			script(t, "wide.sh", sz[0], sz[1])
		})
	}
}

func TestTruecolorGradient(t *testing.T) {
	t.Parallel()
	needTmux(t)
	script(t, "gradient.sh", 30, 100)
}

func TestPalette256(t *testing.T) {
	t.Parallel()
	needTmux(t)
	script(t, "palette.sh", 30, 100)
}

// TestUnderlineColour: SGR 58 colours the underline separately from the
// text (kitty, vte, iTerm2, WezTerm, tmux; vim uses it for spelling
// squiggles through t_AU). tmux keeps it; a peek must too.
func TestUnderlineColour(t *testing.T) {
	t.Parallel()
	needTmux(t)
	p := start(t, spec{rows: 10, cols: 60, dir: t.TempDir(), argv: shell(
		`printf '\033[4;58;5;196mpalette\033[m \033[4:3;58:2::255:0:0mcurly red\033[m \033[58;5;2;4mgreen\033[59m plain\033[m\nEND'`)})
	p.check("END", "")
}

// copyTestdata copies a testdata file into a fresh directory, so that a
// program may change it, and returns the directory.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(testdata(t, name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// step is input typed into both sides and what the screen must then show
// (want) and no longer show (gone).
type step struct{ keys, want, gone string }

func drive(p *pair, steps []step) {
	p.t.Helper()
	for _, s := range steps {
		if s.keys != "" {
			p.send(s.keys)
		}
		p.check(s.want, s.gone)
	}
}

func TestVim(t *testing.T) {
	t.Parallel()
	needTmux(t)
	need(t, "vim", "vim")
	for _, c := range []struct {
		name       string
		rows, cols int
		syntax     string
	}{
		{"plain-30x100", 30, 100, "syntax off"},
		{"syntax-30x100", 30, 100, "syntax on"},
		{"syntax-24x80", 24, 80, "syntax on"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// No viminfo, no swap file, and a short key-code timeout so
			// an Escape is taken as Escape at once instead of after a
			// second. The background is fixed because vim asks the
			// terminal for its background colour (OSC 11) and picks its
			// syntax colours from the answer: the pty daemon answers
			// (dark), tmux without a client does not, so left alone the
			// two vims would choose different colour schemes.
			p := start(t, spec{rows: c.rows, cols: c.cols, dir: copyTestdata(t, "sample.go"),
				argv: []string{"vim", "-u", "NONE", "-i", "NONE", "-N", "-n",
					"--cmd", "set ttimeout ttimeoutlen=20 background=dark", "-c", c.syntax, "sample.go"}})
			drive(p, []step{
				{"", `"sample.go" 122L`, ""},
				{":set number ruler laststatus=2 hlsearch\r", "  1 package main", ""},
				{"G", "122,1", ""},
				{"gg", "Top", "122,1"},
				{"9GA typed 中文 é\x1b", "typed 中文 é", "-- INSERT --"},
				{"/return\r", "/return", ""},
				{"jjwv2jl", "-- VISUAL --", ""},
				{"\x1b:vsplit\r", "|", "-- VISUAL --"},
				{"\x17lggOnew first line\x1b", "new first line", "-- INSERT --"},
			})
		})
	}
}
