package term

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// liveSession runs a real program in a private tmux server, records its
// output with pipe-pane, and after each step checks that our Screen fed the
// recorded bytes shows what tmux shows.
type liveSession struct {
	t          *testing.T
	tmux, sock string
	rec        string
	rows, cols int
}

func startLive(t *testing.T, rows, cols int, command string) *liveSession {
	t.Helper()
	tmux := tmuxPath(t)
	dir := t.TempDir()
	l := &liveSession{t: t, tmux: tmux, rows: rows, cols: cols,
		sock: fmt.Sprintf("ptyterm-live-%d-%d", os.Getpid(), tmuxSeq.Add(1)),
		rec:  filepath.Join(dir, "rec")}
	t.Cleanup(func() { killTmux(tmux, l.sock) })
	// The program waits for a signal so recording starts before its
	// first byte.
	script := fmt.Sprintf("%s -L %s wait-for go; cd %q; %s; exec sleep 1000", tmux, l.sock, dir, command)
	l.run(append([]string{"new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "sh", "-c", script},
		tmuxWatchdog(tmux, l.sock, 5*time.Minute)...)...)
	l.run("pipe-pane", "-o", "cat > "+l.rec)
	l.run("wait-for", "-S", "go")
	return l
}

func (l *liveSession) run(args ...string) string {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.tmux, append([]string{"-L", l.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil {
		l.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (l *liveSession) keys(keys ...string) {
	l.t.Helper()
	l.run(append([]string{"send-keys"}, keys...)...)
}

// settle polls until the recorded output, replayed into a Screen, matches
// the tmux pane (text and cursor) and contains want; it fails at the
// deadline with the last difference.
func (l *liveSession) settle(want string) *Screen {
	l.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var diff string
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 200*time.Millisecond) {
		data, _ := os.ReadFile(l.rec)
		s := New(l.rows, l.cols, Options{})
		s.Write(data)
		pane := l.run("capture-pane", "-p")
		var cx, cy int
		fmt.Sscanf(l.run("display-message", "-p", "#{cursor_x} #{cursor_y}"), "%d %d", &cx, &cy)
		got := s.PlainText(false)
		y, x, _ := s.Cursor()
		if s.wrapNext {
			x++ // tmux's view of a pending wrap
		}
		var styles []string
		// tmux keeps a pending wrap across EL, xterm (and we) cancel
		// it; top ends every frame that way.
		if x == l.cols-1 && cx == l.cols {
			x = cx
		}
		if got == pane && x == cx && y == cy && strings.Contains(pane, want) {
			styles = styleDiffs(s, l.run("capture-pane", "-p", "-e"))
			if len(styles) == 0 {
				return s
			}
		}
		diff = fmt.Sprintf("ours (cursor %d,%d):\n%s\ntmux (cursor %d,%d):\n%s\n%s", y, x, quoteLines(got), cy, cx, quoteLines(pane), strings.Join(styles, "\n"))
		if time.Now().After(deadline) {
			l.t.Fatalf("screen did not settle (want %q):\n%s", want, diff)
		}
		time.Sleep(delay)
	}
}

func TestLiveVim(t *testing.T) {
	if testing.Short() {
		t.Skip("live program test")
	}
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Skip("vim not installed")
	}
	t.Parallel()
	var src strings.Builder
	src.WriteString("package main\n\nimport \"fmt\"\n\n// A comment with 中文 and émoji 😀.\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&src, "func f%d(x int) string {\n\treturn fmt.Sprintf(\"%%d: %s\", x)\n}\n\n", i, strings.Repeat("word ", i%12))
	}
	file := filepath.Join(t.TempDir(), "main.go")
	if err := os.WriteFile(file, []byte(src.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	l := startLive(t, 24, 80, fmt.Sprintf("%s -u NONE -i NONE -N -n -c 'syntax on' -c 'set number ruler laststatus=2 hlsearch' %q", vim, file))
	l.settle("A comment")
	l.keys("G")
	l.settle("f59")
	l.keys("gg", "/Sprintf", "Enter")
	l.settle("Sprintf")
	l.keys("o", "inserted line with tabs\tand 中文", "Escape")
	l.settle("inserted line")
	l.keys("C-f")
	l.settle("func")
	l.keys("C-b", "5dd", "u")
	l.settle("func")
	l.keys(":vsplit", "Enter")
	l.settle("main.go")
	l.keys(":q!", "Enter", ":q!", "Enter")
	l.settle("")
}

func TestLiveLess(t *testing.T) {
	if testing.Short() {
		t.Skip("live program test")
	}
	less, err := exec.LookPath("less")
	if err != nil {
		t.Skip("less not installed")
	}
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d\x1b[0m %s\n", i%8, i, strings.Repeat("text ", i%20))
	}
	file := filepath.Join(dir, "log.txt")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	l := startLive(t, 20, 70, fmt.Sprintf("%s -R %q", less, file))
	l.settle("line 0")
	l.keys("Space")
	l.settle("line 2")
	l.keys("/line 1[0-9]0", "Enter")
	l.settle("line 1")
	l.keys("G")
	l.settle("line 199")
	l.keys("g")
	l.settle("line 0")
	l.keys("q")
	l.settle("")
}

func TestLiveShell(t *testing.T) {
	if testing.Short() {
		t.Skip("live program test")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	t.Parallel()
	l := startLive(t, 12, 50, fmt.Sprintf(`env -i TERM=screen HOME=/tmp LANG=C.UTF-8 PS1='\[\e[1;32m\]user@host\[\e[0m\]:\[\e[34m\]~\[\e[0m\]$ ' %s --norc --noprofile -i`, bash))
	l.settle("user@host")
	// A command line longer than the screen is wide, edited across the
	// wrap point.
	l.keys("echo one two " + strings.Repeat("abcdefghij", 7))
	l.settle("abcdefghij")
	l.keys("C-a", "M-f", "M-f", "C-k", "MARK")
	l.settle("echo oneMARK")
	l.keys("C-a", "C-k", "printf '\\033[31mred\\033[0m 中文 tab\\there\\n'; ls --color=always /", "Enter")
	l.settle("red")
	l.keys("for i in $(seq 1 30); do echo line $i; done", "Enter")
	l.settle("line 30")
	l.keys("clear; echo cleared", "Enter")
	l.settle("cleared")
	l.keys("printf 'a\\tb\\r\\n\\033[7mrev\\033[27m \\033[4munder\\033[0m\\n'", "Enter")
	l.settle("under")
}

func TestLiveTop(t *testing.T) {
	if testing.Short() {
		t.Skip("live program test")
	}
	top, err := exec.LookPath("top")
	if err != nil {
		t.Skip("top not installed")
	}
	t.Parallel()
	// top redraws constantly; a huge delay keeps the screen still while
	// the comparison runs.
	l := startLive(t, 24, 100, fmt.Sprintf("env TERM=screen %s -d 1000", top))
	l.settle("PID")
	l.keys("z") // colour mode
	l.settle("PID")
	l.keys("x") // highlight sort column
	l.settle("PID")
	l.keys("q")
	l.settle("")
}
