package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
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

// needVimSyntax skips unless vim has syntax highlighting: Debian's
// vim-tiny also installs itself as vim, without it.
func needVimSyntax(t *testing.T) {
	t.Helper()
	vim := need(t, "vim", "vim")
	out, err := exec.Command(vim, "--version").Output()
	if err != nil || !strings.Contains(string(out), "+syntax") {
		testutil.MissingTool(t, vim+" with syntax highlighting (apt-get install vim, not vim-tiny)")
	}
}

func TestVim(t *testing.T) {
	t.Parallel()
	needTmux(t)
	needVimSyntax(t)
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
				// A horizontal split scrolls each window inside its own
				// scroll region (DECSTBM) on Ctrl-E and Ctrl-Y.
				{":only\r:split\r", ":split", ""},
				{"\x05\x05\x05", "4,8", ""},
				{"\x19\x19\x19", "4,8            Top", ""},
			})
		})
	}
}

// logFile writes a coloured log as build tools print one: SGR colours,
// lines longer than the screen, tabs, wide characters.
func logFile(t *testing.T, lines int) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %03d\x1b[m\t%s", i%8, i, strings.Repeat("text ", i%23))
		switch i % 10 {
		case 3:
			b.WriteString("\x1b[1;31merror:\x1b[m 中文 wide")
		case 7:
			b.WriteString("\x1b[38;5;208m256\x1b[m \x1b[48;2;0;80;160mtruecolor\x1b[m \x1b[4munder\x1b[m")
		}
		b.WriteString("\n")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "log.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLess(t *testing.T) {
	t.Parallel()
	needTmux(t)
	need(t, "less", "less")
	for _, sz := range [][2]int{{30, 100}, {20, 70}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			p := start(t, spec{rows: sz[0], cols: sz[1], dir: logFile(t, 300),
				argv: []string{"env", "LESS=", "LESSHISTFILE=-", "less", "-R", "log.txt"}})
			drive(p, []step{
				{"", "line 000", ""},
				{" ", "", "line 000"},
				{"G", "(END)", ""},
				{"b", "", "(END)"},
				{"g", "line 000", ""},
				{"/line 1[0-9]7\r", "line 107", ""},
				{"n", "line 117", ""},
				{"5j", "", "line 107"},
				{"3k", "line 119", ""},
			})
		})
	}
}

// TestScrollback compares `pty peek --full` with `capture-pane -S -`. With
// fewer lines than either keeps, the whole history must agree; beyond
// that, the two trim differently (tmux drops a tenth of its history-limit
// at a time, pty one line at a time), so only the lines both still hold
// are compared: the last min(len) of each.
func TestScrollback(t *testing.T) {
	t.Parallel()
	needTmux(t)
	for _, c := range []struct {
		name       string
		lines      int
		rows, cols int
		wantAll    bool
	}{
		{"within-history", 1500, 30, 100, true},
		{"beyond-history", 12000, 24, 80, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, spec{rows: c.rows, cols: c.cols, dir: t.TempDir(), history: 10000,
				argv: []string{"sh", testdata(t, "scrollback.sh"), fmt.Sprint(c.lines)}})
			p.check("END", "")
			tl, pl := p.compareFull(t)
			if c.wantAll && tl != pl {
				t.Errorf("tmux keeps %d lines, pty %d", tl, pl)
			}
			if min(tl, pl) < c.rows*2 {
				t.Fatalf("only %d lines of history to compare (tmux %d, pty %d)", min(tl, pl), tl, pl)
			}
		})
	}
}

// trimGlyphLines drops trailing lines that are empty or only spaces.
func trimGlyphLines(ls [][]glyph) [][]glyph {
	for len(ls) > 0 && strings.TrimSpace(glyphText(ls[len(ls)-1])) == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// firstDiff quotes the neighbourhood of the first line where two
// captures differ.
func firstDiff(tmux, pty string) string {
	a, b := strings.Split(tmux, "\n"), strings.Split(pty, "\n")
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i] != b[i] {
			lo, hi := max(0, i-2), min(min(len(a), len(b)), i+3)
			return fmt.Sprintf("from line %d:\n%s", lo, sideBySide(strings.Join(a[lo:hi], "\n"), strings.Join(b[lo:hi], "\n")))
		}
	}
	return fmt.Sprintf("tmux has %d lines, pty %d", len(a), len(b))
}

// TestResize: full-screen programs repaint on SIGWINCH, so after a resize
// both screens must agree again, shrinking and growing.
func TestResize(t *testing.T) {
	t.Parallel()
	needTmux(t)
	t.Run("less", func(t *testing.T) {
		t.Parallel()
		need(t, "less", "less")
		p := start(t, spec{rows: 30, cols: 100, dir: logFile(t, 300),
			argv: []string{"env", "LESS=", "LESSHISTFILE=-", "less", "-R", "log.txt"}})
		drive(p, []step{{"", "line 000", ""}, {"G", "(END)", ""}})
		// less keeps its top line across a resize, so the shorter
		// screen no longer shows the end of the file, and the taller
		// one shows it again.
		p.resize(20, 70)
		p.check(":", "(END)")
		p.resize(30, 100)
		p.check("(END)", "")
		drive(p, []step{{"g", "line 000", ""}})
	})
	t.Run("vim", func(t *testing.T) {
		t.Parallel()
		needVimSyntax(t)
		p := start(t, spec{rows: 30, cols: 100, dir: copyTestdata(t, "sample.go"),
			argv: []string{"vim", "-u", "NONE", "-i", "NONE", "-N", "-n",
				"--cmd", "set ttimeout ttimeoutlen=20 background=dark", "-c", "syntax on",
				"-c", "set number ruler laststatus=2", "sample.go"}})
		drive(p, []step{{"", `"sample.go" 122L`, ""}, {"40G", "40,0-1", ""}})
		// A key after each resize gives a marker that only a vim that
		// has handled the resize can show.
		p.resize(24, 80)
		drive(p, []step{{"j", "41,1", "40,0-1"}})
		p.resize(35, 120)
		drive(p, []step{{"k", "40,0-1", "41,1"}})
	})
	// A line longer than the screen is one logical line that wraps:
	// when the width changes, tmux (like xterm.js, which upstream pty
	// used, and kitty, iTerm2, VTE) re-wraps it to the new width, so no
	// text is lost. Cutting the rows instead loses the cut-off text for
	// good, and widening leaves the old wrap points in place.
	for _, c := range []struct {
		name          string
		cols, newCols int
	}{{"wrapped-line-narrower", 40, 30}, {"wrapped-line-wider", 30, 45}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, spec{rows: 10, cols: c.cols, dir: t.TempDir(),
				argv: shell(`printf 'short\n\033[32m'; i=0; while [ $i -lt 90 ]; do printf '%d' $((i % 10)); i=$((i + 1)); done; printf '\033[m\nEND'`)})
			p.check("END", "")
			p.resize(10, c.newCols)
			p.check("END", "")
			p.compareFull(t)
		})
	}
	t.Run("rows-only", func(t *testing.T) {
		// Output that does not repaint: the rows leaving the top when
		// the screen gets shorter go to the scrollback and come back
		// when it grows again, in tmux as in xterm.
		t.Parallel()
		p := start(t, spec{rows: 30, cols: 100, dir: t.TempDir(),
			argv: shell(`i=0; while [ $i -lt 45 ]; do printf '\033[3%dmrow %d\033[m\n' $((i % 8)) $i; i=$((i + 1)); done; printf END`)})
		p.check("END", "")
		p.resize(20, 100)
		p.check("END", "")
		p.compareFull(t)
		p.resize(30, 100)
		p.check("END", "")
		p.compareFull(t)
	})
}

// compareFull compares the whole history and screen, text and styles, as
// far back as both keep, and returns how many lines each keeps.
func (p *pair) compareFull(t *testing.T) (tmuxLines, ptyLines int) {
	t.Helper()
	tp := strings.Split(trimPlain(p.run("capture-pane", "-p", "-S", "-", "-t", "o")), "\n")
	pp := strings.Split(trimPlain(testutil.MustRun(t, p.root, "peek", "--full", "--plain", p.id).Stdout), "\n")
	n := min(len(tp), len(pp))
	if a, b := strings.Join(tp[len(tp)-n:], "\n"), strings.Join(pp[len(pp)-n:], "\n"); a != b {
		t.Fatalf("last %d lines of the scrollback differ:\n%s", n, firstDiff(a, b))
	}
	ta, err := parseANSI(p.run("capture-pane", "-p", "-e", "-N", "-S", "-", "-t", "o"))
	if err != nil {
		t.Fatal(err)
	}
	pa, err := parseANSI(testutil.MustRun(t, p.root, "peek", "--full", p.id).Stdout)
	if err != nil {
		t.Fatal(err)
	}
	// capture-pane prints every visible row; peek may stop at the last
	// non-empty one. Align both on the last line of text.
	ta, pa = trimGlyphLines(ta), trimGlyphLines(pa)
	n = min(len(ta), len(pa))
	if d := styleDiffs(pa[len(pa)-n:], ta[len(ta)-n:], n); len(d) > 0 {
		t.Fatalf("styles in the scrollback differ (pty peek --full | tmux capture-pane -e -S -):\n%s", strings.Join(d, "\n"))
	}
	t.Logf("%d lines agree (tmux keeps %d, pty %d)", n, len(tp), len(pp))
	return len(tp), len(pp)
}

func TestEditingSequences(t *testing.T) {
	t.Parallel()
	needTmux(t)
	for _, sz := range [][2]int{{30, 100}, {20, 37}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Parallel()
			script(t, "edits.sh", sz[0], sz[1])
		})
	}
}

// TestHangulJamo: a syllable spelled with conjoining jamo (leading
// consonant U+1112, vowel U+1161, trailing consonant U+11AB) is one
// 2-column character: glibc's wcwidth gives the vowel and the trailing
// consonant width 0 (as does xterm.js), and tmux draws 한 in two columns.
// The '#' at a fixed column shows the width each side used.
func TestHangulJamo(t *testing.T) {
	t.Parallel()
	needTmux(t)
	p := start(t, spec{rows: 5, cols: 30, dir: t.TempDir(), argv: shell(
		`printf 'jamo: \341\204\222\341\205\241\341\206\253\033[20G#\nprecomposed: \355\225\234\033[20G#\nEND'`)})
	p.check("END", "")
}

func TestLineDrawing(t *testing.T) {
	t.Parallel()
	needTmux(t)
	script(t, "line-drawing.sh", 10, 40)
}

// TestAlternateScreen: output before a full-screen program, the program
// on the alternate screen, and the shell's screen restored after it,
// with the history compared at each stage.
func TestAlternateScreen(t *testing.T) {
	t.Parallel()
	needTmux(t)
	need(t, "less", "less")
	p := start(t, spec{rows: 20, cols: 70, dir: logFile(t, 100), history: 10000,
		argv: shell(`i=0; while [ $i -lt 40 ]; do printf '\033[3%dmbefore %d\033[m\n' $((i % 8)) $i; i=$((i + 1)); done; ` +
			`LESS= LESSHISTFILE=- less -R log.txt; echo after less; printf END`)})
	p.check("line 000", "")
	p.compareFull(t)
	drive(p, []step{{"q", "END", "line 000"}})
	p.compareFull(t)
}
