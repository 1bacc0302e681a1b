package oracle

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	creackpty "github.com/creack/pty"
	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
	"golang.org/x/sys/unix"
)

var serverSeq atomic.Int64

const (
	// settleTimeout bounds the wait for both screens to show the marker
	// and stop changing.
	settleTimeout = 20 * time.Second
	// convergeTimeout is how long two stable but different screens get
	// to become equal (a program may redraw once more after a pause, say
	// after a query reply) before the difference is reported.
	convergeTimeout = 3 * time.Second
	// stablePolls identical captures 50 ms apart count as a stable screen.
	stablePolls = 3
	pollGap     = 50 * time.Millisecond
)

// spec says how to start the program on both sides.
type spec struct {
	rows, cols int
	dir        string   // working directory
	argv       []string // run under the fixed environment of progEnv
	history    int      // tmux history-limit; 0 means tmux's default
}

// pair is one program running in tmux and in pty side by side.
type pair struct {
	t          *testing.T
	tmux, sock string
	root, id   string
	rows, cols int
	detach     func() // ends the attached client resize started
}

// needTmux skips the test when tmux is missing, the way the whole package
// is meant to be skipped: every test here starts with it.
func needTmux(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		testutil.MissingTool(t, "tmux (apt-get install tmux)")
	}
	return p
}

// need skips the test when prog is missing, naming the Debian package.
func need(t *testing.T, prog, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		testutil.MissingTool(t, prog+" (apt-get install "+pkg+")")
	}
	return p
}

// progEnv is the whole environment of the program on both sides: env -i
// clears what tmux (TMUX, TMUX_PANE) and pty (PTY_SESSION, ...) add, so
// the program cannot tell where it runs except through the terminal.
func progEnv(argv ...string) []string {
	return append([]string{"env", "-i",
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TZ=UTC"}, argv...)
}

// start launches the program in a private tmux server and in a pty
// session, both rows x cols in dir.
func start(t *testing.T, sp spec) *pair {
	t.Helper()
	p := &pair{t: t, tmux: needTmux(t), rows: sp.rows, cols: sp.cols,
		sock: fmt.Sprintf("ptyoracle-%d-%d", os.Getpid(), serverSeq.Add(1)),
		root: testutil.Root(t), id: "o"}
	t.Cleanup(func() { exec.Command(p.tmux, "-L", p.sock, "kill-server").Run() })
	argv := progEnv(sp.argv...)
	history := []string{}
	if sp.history > 0 {
		history = []string{";", "set", "-g", "history-limit", fmt.Sprint(sp.history)}
	}
	// Options must be set before the session exists: history-limit is
	// read when a pane is created.
	args := append([]string{"-f", "/dev/null", "start-server", ";", "set", "-g", "default-terminal", "xterm-256color"}, history...)
	args = append(args, ";", "new-session", "-d", "-s", "o", "-x", fmt.Sprint(sp.cols), "-y", fmt.Sprint(sp.rows), "-c", sp.dir, "--")
	p.run(append(args, argv...)...)
	testutil.MustRun(t, p.root, append([]string{"run", "-d", "--id", p.id,
		"--rows", fmt.Sprint(sp.rows), "--cols", fmt.Sprint(sp.cols), "--cwd", sp.dir, "--"}, argv...)...)
	return p
}

func (p *pair) run(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.tmux, append([]string{"-L", p.sock}, args...)...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// tmuxEnv lets the tmux client find its own server (not an enclosing one)
// and print UTF-8 rather than replacing it with '_'.
func tmuxEnv() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "TMUX" && k != "TMUX_PANE" && k != "LANG" && !strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	return append(env, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
}

// send types the same bytes into both: hex through send-keys -H so tmux
// does not translate anything, and as one argument to pty send, which
// sends text exactly as given.
func (p *pair) send(data string) {
	p.t.Helper()
	args := []string{"send-keys", "-t", "o", "-H"}
	for i := 0; i < len(data); i++ {
		args = append(args, hex.EncodeToString([]byte{data[i]}))
	}
	p.run(args...)
	testutil.MustRun(p.t, p.root, "send", p.id, data)
}

// snap is one capture of one side.
type snap struct{ plain, ansi string }

func (p *pair) tmuxPlain() string { return p.run("capture-pane", "-p", "-t", "o") }
func (p *pair) tmuxANSI() string  { return p.run("capture-pane", "-p", "-e", "-N", "-t", "o") }

// cursor is what the captures do not show: the size and the cursor.
type cursor struct {
	Rows, Cols, X, Y int
	Hidden           bool
}

func (p *pair) tmuxCursor() cursor {
	p.t.Helper()
	var c cursor
	var visible int
	out := p.run("display-message", "-p", "-t", "o", "#{pane_height} #{pane_width} #{cursor_x} #{cursor_y} #{cursor_flag}")
	if _, err := fmt.Sscan(out, &c.Rows, &c.Cols, &c.X, &c.Y, &visible); err != nil {
		p.t.Fatalf("tmux cursor %q: %v", out, err)
	}
	c.Hidden = visible == 0
	return c
}

func (p *pair) ptyCursor() cursor {
	p.t.Helper()
	out := testutil.MustRun(p.t, p.root, "stats", "--json", p.id).Stdout
	st, err := proto.ParseStatus([]byte(out))
	if err != nil {
		p.t.Fatalf("pty stats --json: %v\n%s", err, out)
	}
	return cursor{Rows: st.Terminal.Rows, Cols: st.Terminal.Cols, X: st.Terminal.CursorX, Y: st.Terminal.CursorY, Hidden: st.Modes.CursorHidden}
}

func (p *pair) ptyPlain() string {
	p.t.Helper()
	return testutil.MustRun(p.t, p.root, "peek", "--plain", p.id).Stdout
}

func (p *pair) ptyANSI() string {
	p.t.Helper()
	return testutil.MustRun(p.t, p.root, "peek", p.id).Stdout
}

// trimPlain drops the trailing empty lines: pty peek --plain ends at the
// last non-empty row while capture-pane prints every row. Everything else
// is compared byte for byte.
func trimPlain(s string) string {
	return strings.TrimRight(s, "\n")
}

// check waits until both screens contain want (and, when gone is not
// empty, no longer contain gone) and have stopped changing, then compares
// them. It fails the test with the differences if they do not become
// equal.
//
// Stability is judged on the coloured captures alone (one tmux and one
// pty process per poll, which matters on a loaded machine); the plain
// captures are taken once both are stable, and the coloured ones again
// right after, so all four describe the same moment.
func (p *pair) check(want, gone string) {
	p.t.Helper()
	deadline := time.Now().Add(settleTimeout)
	var (
		lastT, lastP     string
		stableT, stableP int
		converge         time.Time
	)
	ready := func(ansi string) bool {
		text := p.ansiText(ansi)
		return strings.Contains(text, want) && (gone == "" || !strings.Contains(text, gone))
	}
	for {
		ta, pa := p.tmuxANSI(), p.ptyANSI()
		stableT, lastT = bump(stableT, lastT, ta)
		stableP, lastP = bump(stableP, lastP, pa)
		if ready(ta) && ready(pa) && stableT >= stablePolls && stableP >= stablePolls {
			ts := snap{plain: p.tmuxPlain(), ansi: ta}
			ps := snap{plain: p.ptyPlain(), ansi: pa}
			if ta2, pa2 := p.tmuxANSI(), p.ptyANSI(); ta2 != ta || pa2 != pa {
				stableT, lastT = bump(stableT, lastT, ta2)
				stableP, lastP = bump(stableP, lastP, pa2)
				continue
			}
			diffs := p.diff(ts, ps)
			if len(diffs) == 0 {
				if tc, pc := p.tmuxCursor(), p.ptyCursor(); tc != pc {
					diffs = []string{fmt.Sprintf("screens agree but not the terminal state: tmux %+v, pty %+v", tc, pc)}
				}
			}
			if len(diffs) == 0 {
				p.t.Logf("screens agree after %q:\n%s", want, trimPlain(ps.plain))
				return
			}
			if converge.IsZero() {
				converge = time.Now().Add(convergeTimeout)
			}
			if time.Now().After(converge) {
				p.t.Fatalf("after waiting for %q pty and tmux differ:\n%s", want, strings.Join(diffs, "\n"))
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out after %v waiting for %q on stable screens (tmux stable %d, ready %v; pty stable %d, ready %v)\n%s",
				settleTimeout, want, stableT, ready(ta), stableP, ready(pa), sideBySide(p.ansiText(ta), p.ansiText(pa)))
		}
		time.Sleep(pollGap)
	}
}

func bump(n int, last, cur string) (int, string) {
	if cur == last {
		return n + 1, cur
	}
	return 1, cur
}

// ansiText is the text of a coloured capture, for finding markers that
// colours may split.
func (p *pair) ansiText(ansi string) string {
	p.t.Helper()
	lines, err := parseANSI(ansi)
	if err != nil {
		p.t.Fatalf("%v in capture:\n%s", err, ansi)
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimRight(glyphText(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// diff compares the text byte for byte and the styles glyph by glyph.
func (p *pair) diff(ts, ps snap) []string {
	tl, err := parseANSI(ts.ansi)
	if err != nil {
		return []string{"tmux capture-pane -e: " + err.Error()}
	}
	ts.plain = withLineDrawing(ts.plain, tl)
	if a, b := trimPlain(ts.plain), trimPlain(ps.plain); a != b {
		return []string{"plain text differs (tmux capture-pane -p | pty peek --plain):\n" + sideBySide(ts.plain, ps.plain)}
	}
	pl, err := parseANSI(ps.ansi)
	if err != nil {
		return []string{"pty peek: " + err.Error()}
	}
	// The ANSI captures must tell the same text as the plain ones,
	// otherwise the style comparison below is comparing other glyphs.
	for name, c := range map[string]struct {
		lines [][]glyph
		plain string
	}{"tmux": {tl, ts.plain}, "pty": {pl, ps.plain}} {
		var text []string
		for _, l := range c.lines {
			text = append(text, strings.TrimRight(glyphText(l), " "))
		}
		if got, want := strings.TrimRight(strings.Join(text, "\n"), "\n"), trimPlain(c.plain); got != want {
			return []string{fmt.Sprintf("%s: coloured capture's text differs from its plain capture:\n%s", name, sideBySide(want, got))}
		}
	}
	if d := styleDiffs(pl, tl, p.rows); len(d) > 0 {
		return append([]string{"styles differ (pty peek | tmux capture-pane -e):"}, d...)
	}
	return nil
}

// withLineDrawing replaces the lines of tmux's plain capture that contain
// line-drawing cells (which it prints as the ASCII letters the program
// sent) by their text from the coloured capture, where parseANSI has
// translated those cells. Other lines stay byte for byte as tmux printed
// them.
func withLineDrawing(plain string, coloured [][]glyph) string {
	lines := strings.Split(plain, "\n")
	for y, l := range coloured {
		if y >= len(lines) || !slices.ContainsFunc(l, func(g glyph) bool { return g.dec }) {
			continue
		}
		lines[y] = strings.TrimRight(glyphText(l), " ")
	}
	return strings.Join(lines, "\n")
}

// sideBySide quotes two captures line by line, marking lines that differ.
func sideBySide(tmux, pty string) string {
	a, b := strings.Split(trimPlain(tmux), "\n"), strings.Split(trimPlain(pty), "\n")
	var out strings.Builder
	fmt.Fprintf(&out, "     tmux | pty\n")
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		mark := " "
		if x != y {
			mark = "!"
		}
		if x == y {
			fmt.Fprintf(&out, "%s%3d %q\n", mark, i, x)
		} else {
			fmt.Fprintf(&out, "%s%3d %q\n        | %q\n", mark, i, x, y)
		}
	}
	return out.String()
}

// resize changes both terminals' size: tmux's window directly, the pty
// session by attaching a client whose own terminal (a real pty) has the
// new size, as a user who attaches from a smaller window does. The client
// stays attached until the next resize or the end of the test: the
// session's size is the smallest of its attached clients'.
func (p *pair) resize(rows, cols int) {
	p.t.Helper()
	if p.detach != nil {
		p.detach()
	}
	p.run("resize-window", "-t", "o", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows))
	// tmux 3.3 applies a pane's new size to its tty on a timer (it
	// coalesces bursts of resizes), so keys sent right away can reach the
	// program before its SIGWINCH. Wait until the tty itself has the size.
	tty := strings.TrimSpace(p.run("display-message", "-p", "-t", "o", "#{pane_tty}"))
	testutil.WaitFor(p.t, 10*time.Second, fmt.Sprintf("tmux's pane tty %s to be %dx%d", tty, rows, cols), func() bool {
		f, err := os.OpenFile(tty, os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
		if err != nil {
			return false
		}
		defer f.Close()
		ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
		return err == nil && int(ws.Row) == rows && int(ws.Col) == cols
	})
	cmd := testutil.Command(p.t, p.root, "attach", p.id)
	f, err := creackpty.StartWithSize(cmd, &creackpty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		p.t.Fatalf("pty attach in a %dx%d terminal: %v", rows, cols, err)
	}
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, f); close(done) }()
	var once sync.Once
	p.detach = func() {
		once.Do(func() {
			cmd.Process.Kill()
			cmd.Wait()
			f.Close()
			// The read ends when no one holds the terminal's other side;
			// should the daemon still hold the descriptor the attach
			// handed it, say so rather than hang the package.
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				p.t.Errorf("pty attach was killed, but its terminal is still held open 15 s later (by the session's daemon?)")
			}
		})
	}
	p.t.Cleanup(p.detach)
	p.rows, p.cols = rows, cols
	testutil.WaitFor(p.t, 10*time.Second, fmt.Sprintf("the session to be %dx%d", rows, cols), func() bool {
		c := p.ptyCursor()
		return c.Rows == rows && c.Cols == cols
	})
}
