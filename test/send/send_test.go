package send

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// captureSession starts a session whose program writes every byte it
// receives, unmodified (raw mode, no echo), to a file, and returns the
// file's path.
func captureSession(t *testing.T, root, id string) string {
	t.Helper()
	out := filepath.Join(root, id+".capture")
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", "stty raw -echo && exec cat >> "+out) // append: the test truncates it between steps
	// The session is ready for input once stty has run, which the file's
	// creation (cat's redirection comes after it) shows.
	testutil.WaitFor(t, 10*time.Second, "the capture file", func() bool {
		_, err := os.Stat(out)
		return err == nil
	})
	return out
}

func waitBytes(t *testing.T, path string, want []byte) {
	t.Helper()
	var got []byte
	testutil.WaitForState(t, 10*time.Second, fmt.Sprintf("the session to receive %q", want), func() (bool, string) {
		got, _ = os.ReadFile(path)
		return len(got) >= len(want), fmt.Sprintf("%q", got)
	})
	if !bytes.Equal(got, want) {
		t.Fatalf("session received %q\nwant %q", got, want)
	}
}

func TestSendKeysExactBytes(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "keys")
	cases := []struct{ spec, want string }{
		{"return", "\r"}, {"Enter", "\r"}, {"tab", "\t"}, {"esc", "\x1b"}, {"backspace", "\x7f"},
		{"space", " "}, {"delete", "\x1b[3~"}, {"insert", "\x1b[2~"},
		{"up", "\x1b[A"}, {"down", "\x1b[B"}, {"right", "\x1b[C"}, {"left", "\x1b[D"},
		{"home", "\x1b[H"}, {"end", "\x1b[F"}, {"pageup", "\x1b[5~"}, {"pagedown", "\x1b[6~"},
		{"f1", "\x1bOP"}, {"f5", "\x1b[15~"}, {"f12", "\x1b[24~"},
		{"q", "q"}, {"7", "7"}, {"ctrl+c", "\x03"}, {"C-x", "\x18"}, {"CTRL_D", "\x04"}, {"ctrl-a", "\x01"},
		{"alt+f", "\x1bf"}, {"shift+a", "A"}, {"ctrl+alt+a", "\x1b\x01"},
		{"ctrl+up", "\x1b[1;5A"}, {"shift+left", "\x1b[1;2D"}, {"alt+shift+right", "\x1b[1;4C"},
		{"ctrl+delete", "\x1b[3;5~"}, {"shift+f1", "\x1b[1;2P"}, {"ctrl+f5", "\x1b[15;5~"},
		{"shift+return", "\x1b[13;2u"}, {"ctrl+return", "\x1b[13;5u"}, {"shift+tab", "\x1b[Z"},
		{"alt+backspace", "\x1b\x7f"}, {"ctrl+space", "\x00"}, {"ctrl+\\", "\x1c"}, {"shift+1", "\x1b[49;2u"},
	}
	args := []string{"send", "keys", "--with-delay", "0"}
	var want bytes.Buffer
	for _, c := range cases {
		args = append(args, "--seq", "key:"+c.spec)
		want.WriteString(c.want)
	}
	r := testutil.MustRun(t, root, args...)
	if r.Stdout != "" || r.Stderr != "" {
		t.Errorf("send is not silent: stdout=%q stderr=%q", r.Stdout, r.Stderr)
	}
	waitBytes(t, out, want.Bytes())
}

func TestSendTextAndPaste(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "txt")
	// No implicit newline; text starting with '-' goes after --.
	testutil.MustRun(t, root, "send", "txt", "héllo wörld")
	waitBytes(t, out, []byte("héllo wörld"))
	testutil.MustRun(t, root, "send", "txt", "--", "-n")
	waitBytes(t, out, []byte("héllo wörld-n"))
	os.Truncate(out, 0)

	testutil.MustRun(t, root, "send", "txt", "--paste", "--with-delay", "0", "--seq", "a b", "--seq", "key:return", "--seq", "c")
	waitBytes(t, out, []byte("\x1b[200~a b\rc\x1b[201~"))
	os.Truncate(out, 0)

	// The display name resolves too.
	testutil.MustRun(t, root, "send", "--paste", "txt", "x")
	waitBytes(t, out, []byte("\x1b[200~x\x1b[201~"))
}

func TestSendValidatesBeforeSending(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "val")
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"val", "--with-delay", "0", "--seq", "ok", "--seq", "key:ctrl+bogus", "--seq", "more"}, "ctrl+bogus"},
		{[]string{"val", "--seq", "key:"}, "empty key"},
		{[]string{"val", "hello", "--seq", "x"}, "not both"},
		{[]string{"val", "hello", "world"}, "Unexpected argument: world"},
		{[]string{}, "needs a session"},
		{[]string{"val"}, "Nothing to send."},
		{[]string{"val", ""}, "Nothing to send."},
		{[]string{"val", "--enter", "hi"}, `--seq "TEXT" --seq key:return`},
		{[]string{"val", "--newline"}, `--seq "TEXT" --seq key:return`},
		{[]string{"val", "--with-delay", "soon", "--seq", "a"}, "--with-delay"},
		{[]string{"nosuch", "hi"}, `Session "nosuch" not found.`},
	}
	for _, c := range bad {
		args := append([]string{"send"}, c.args...)
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || r.Stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", args, r.Code, r.Stdout, r.Stderr, c.want)
		}
	}
	// Nothing of the rejected sends arrived: the next byte is the first.
	testutil.MustRun(t, root, "send", "val", "Z")
	waitBytes(t, out, []byte("Z"))
}

func TestSendDefaultDelay(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "dly")
	// Watch the capture file for the first and the last item's arrival.
	type span struct{ first, last time.Time }
	done := make(chan span)
	go func() {
		var sp span
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			b, _ := os.ReadFile(out)
			if len(b) >= 1 && sp.first.IsZero() {
				sp.first = time.Now()
			}
			if len(b) >= 3 {
				sp.last = time.Now()
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		done <- sp
	}()
	start := time.Now()
	testutil.MustRun(t, root, "send", "dly", "--seq", "a", "--seq", "b", "--seq", "c")
	took := time.Since(start)
	sp := <-done
	waitBytes(t, out, []byte("abc"))
	// Lower bounds only, with slack for a slow observer: two 300 ms gaps
	// separate the first item from the last.
	if took < 550*time.Millisecond {
		t.Errorf("three items with the default delay took %v, want at least 2 x 300ms", took)
	}
	if gap := sp.last.Sub(sp.first); gap < 400*time.Millisecond {
		t.Errorf("the first and last item arrived %v apart, want about 600ms", gap)
	}

	// --with-delay 0: the same bytes, without the pauses between them.
	os.Truncate(out, 0)
	testutil.MustRun(t, root, "send", "dly", "--with-delay", "0", "--seq", "x", "--seq", "y", "--seq", "key:tab")
	waitBytes(t, out, []byte("xy\t"))
}

func TestSendToStoppedSession(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "gone", "--tag", "keep=true", "--", "true")
	testutil.WaitFor(t, 10*time.Second, "the session to exit", func() bool {
		return strings.Contains(testutil.Run(t, root, "list", "--json").Stdout, `"exited"`)
	})
	r := testutil.Run(t, root, "send", "gone", "hi")
	if r.Code != 1 || !strings.Contains(r.Stderr, "not running") {
		t.Errorf("send to an exited session: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// A program that exits as soon as it has read its input makes the daemon
// send EXIT and close while send is still confirming delivery; that is a
// success, not a broken pipe.
func TestSendToProgramThatExitsOnInput(t *testing.T) {
	root := testutil.Root(t)
	for i := 0; i < 10; i++ {
		id := fmt.Sprintf("once%d", i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--tag", "keep=true", "--", "sh", "-c", "read x; exit 0")
		if r := testutil.Run(t, root, "send", id, "--seq", "hi", "--seq", "key:return"); r.Code != 0 {
			t.Fatalf("round %d: send exit %d: %s", i, r.Code, r.Stderr)
		}
	}
}

// modeSession starts a session like captureSession's whose program first
// puts the cursor keys and the keypad in application mode when app is
// set, as less does with smkx, and returns the capture file.
func modeSession(t *testing.T, root, id string, app bool) string {
	t.Helper()
	out := filepath.Join(root, id+".capture")
	testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "sh", "-c", modeProgram(app, out))
	waitReady(t, out, func() bool { return strings.Contains(testutil.Run(t, root, "peek", "--plain", id).Stdout, "ready") })
	return out
}

// modeProgram is a shell command line that prints "ready" once its
// terminal is raw (and in application modes, with app) and then appends
// every byte it receives to out.
func modeProgram(app bool, out string) string {
	s := "stty raw -echo && "
	if app {
		s += `printf '\033[?1h\033=' && `
	}
	return s + "printf ready && exec cat >> " + out
}

// waitReady waits for the capture file and for the program's "ready" on
// its screen: the modes it set come before it in its output.
func waitReady(t *testing.T, out string, ready func() bool) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the capture file", func() bool {
		_, err := os.Stat(out)
		return err == nil
	})
	testutil.WaitFor(t, 10*time.Second, "ready on the screen", ready)
}

// Keys are typed as a terminal would for the program's modes: in
// application cursor mode an arrow is ESC O B, not ESC [ B (which less
// ignores), and the keypad sends SS3 sequences in application keypad
// mode. tmux's send-keys is the oracle where it follows xterm (it sends
// Home and End as ESC[1~ and ESC[4~ and the keypad's Enter as LF, so
// those are checked against xterm's table only).
func TestSendKeysFollowTheProgramsModes(t *testing.T) {
	cases := []struct{ spec, tmux, normal, app string }{
		{"up", "Up", "\x1b[A", "\x1bOA"},
		{"down", "Down", "\x1b[B", "\x1bOB"},
		{"right", "Right", "\x1b[C", "\x1bOC"},
		{"left", "Left", "\x1b[D", "\x1bOD"},
		{"home", "", "\x1b[H", "\x1bOH"},
		{"end", "", "\x1b[F", "\x1bOF"},
		{"ctrl+up", "C-Up", "\x1b[1;5A", "\x1b[1;5A"},
		{"shift+left", "S-Left", "\x1b[1;2D", "\x1b[1;2D"},
		{"alt+right", "M-Right", "\x1b[1;3C", "\x1b[1;3C"},
		{"ctrl+home", "", "\x1b[1;5H", "\x1b[1;5H"},
		{"kp0", "KP0", "0", "\x1bOp"},
		{"kp5", "KP5", "5", "\x1bOu"},
		{"kp9", "KP9", "9", "\x1bOy"},
		{"kpplus", "KP+", "+", "\x1bOk"},
		{"kp-", "KP-", "-", "\x1bOm"},
		{"kp_multiply", "KP*", "*", "\x1bOj"},
		{"kpdivide", "KP/", "/", "\x1bOo"},
		{"kp.", "KP.", ".", "\x1bOn"},
		{"kpenter", "", "\r", "\x1bOM"},
		{"pagedown", "NPage", "\x1b[6~", "\x1b[6~"},
		{"f1", "F1", "\x1bOP", "\x1bOP"},
	}
	root := testutil.Root(t)
	for _, app := range []bool{false, true} {
		name := map[bool]string{false: "normal", true: "app"}[app]
		t.Run(name, func(t *testing.T) {
			out := modeSession(t, root, name, app)
			args := []string{"send", name, "--with-delay", "0"}
			var want, wantTmux bytes.Buffer
			var tmuxKeys []string
			for _, c := range cases {
				args = append(args, "--seq", "key:"+c.spec)
				w := map[bool]string{false: c.normal, true: c.app}[app]
				want.WriteString(w)
				if c.tmux != "" {
					tmuxKeys = append(tmuxKeys, c.tmux)
					wantTmux.WriteString(w)
				}
			}
			testutil.MustRun(t, root, args...)
			waitBytes(t, out, want.Bytes())

			// The same program in tmux, typed into by send-keys.
			tout := filepath.Join(root, name+".tmux")
			tm := testutil.StartTmux(t, root, 24, 80, modeProgram(app, tout))
			waitReady(t, tout, func() bool { return strings.Contains(tm.Screen(), "ready") })
			tm.Keys(tmuxKeys...)
			waitBytes(t, tout, wantTmux.Bytes())
		})
	}
}

// Each key is encoded for the modes the program is in when its turn
// comes, not when send starts: here the program enters application
// cursor mode only after reading the first item.
func TestSendKeysFollowModeChangesMidSequence(t *testing.T) {
	root := testutil.Root(t)
	out := filepath.Join(root, "mid.capture")
	testutil.MustRun(t, root, "run", "-d", "--id", "mid", "--", "sh", "-c",
		"stty raw -echo && printf ready && dd bs=1 count=1 2>/dev/null >> "+out+` && printf '\033[?1h' && exec cat >> `+out)
	testutil.WaitFor(t, 10*time.Second, "ready", func() bool {
		return strings.Contains(testutil.Run(t, root, "peek", "--plain", "mid").Stdout, "ready")
	})
	// The pause between the keys is the program's time to switch modes
	// after reading the first: generous, for a loaded machine under -race.
	testutil.MustRun(t, root, "send", "mid", "--with-delay", "3", "--seq", "key:down", "--seq", "key:down")
	waitBytes(t, out, []byte("\x1b[B\x1bOB"))
}

// A real less on a file longer than the screen: Down scrolls it one
// line, as tmux's send-keys Down does to the same less.
func TestSendDownScrollsLess(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		testutil.MissingTool(t, "less")
	}
	root := testutil.Root(t)
	file := filepath.Join(root, "long.txt")
	var text strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	if err := os.WriteFile(file, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	testutil.MustRun(t, root, "run", "-d", "--id", "less", "--rows", "24", "--cols", "80",
		"--env", "TERM=xterm-256color", "--env", "LESS=", "--", "less", file)
	peek := func() []string { return testutil.PlainLines(testutil.Run(t, root, "peek", "--plain", "less").Stdout) }
	first := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return l[0]
	}
	testutil.WaitFor(t, 10*time.Second, "less to show the file", func() bool {
		l := peek()
		return first(l) == "line 1" && len(l) > 20 && l[22] == "line 23"
	})
	testutil.MustRun(t, root, "send", "less", "--seq", "key:down")
	var screen []string
	testutil.WaitFor(t, 10*time.Second, "less to scroll down one line", func() bool {
		screen = peek()
		return first(screen) == "line 2"
	})

	tm := testutil.StartTmux(t, root, 24, 80, "LESS= exec less "+file)
	tm.WaitScreen("less in tmux", func(s string) bool { return strings.HasPrefix(s, "line 1\n") && strings.Contains(s, "line 23") })
	tm.Keys("Down")
	scr := tm.WaitScreen("tmux's less to scroll", func(s string) bool { return strings.HasPrefix(s, "line 2\n") })
	tmuxLines := testutil.PlainLines(scr)
	if strings.Join(tmuxLines[:23], "\n") != strings.Join(screen[:23], "\n") {
		t.Errorf("after Down, pty's less shows\n%s\ntmux's shows\n%s", strings.Join(screen, "\n"), strings.Join(tmuxLines, "\n"))
	}
}

// writeRandom writes n pseudo-random bytes, every byte value among them,
// to a new file and returns its path and sha256.
func writeRandom(t *testing.T, n int) (string, [32]byte) {
	t.Helper()
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, sha256.Sum256(b)
}

// waitSum waits for the capture file to hold n bytes, then checks it
// holds exactly want.
func waitSum(t *testing.T, path string, n int64, want [32]byte) {
	t.Helper()
	testutil.WaitForState(t, 5*time.Minute, fmt.Sprintf("the session to receive %d bytes", n), func() (bool, string) {
		fi, err := os.Stat(path)
		if err != nil {
			return false, err.Error()
		}
		return fi.Size() >= n, fmt.Sprintf("%d bytes", fi.Size())
	})
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) != n || sha256.Sum256(got) != want {
		t.Fatalf("session received %d bytes with sha256 %x, want %d bytes with %x", len(got), sha256.Sum256(got), n, want)
	}
}

func TestSendStdinLosesNothing(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "big")
	const n = 100 << 20
	in, sum := writeRandom(t, n)
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := testutil.Command(t, root, "send", "big", "-")
	cmd.Stdin = f
	if r := testutil.RunCmd(t, cmd); r.Code != 0 || r.Stdout != "" || r.Stderr != "" {
		t.Fatalf("send big - < 100 MB: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	waitSum(t, out, n, sum)
}

func TestSendFile(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "file")
	const n = 1<<20 + 7 // not a whole number of pieces
	in, sum := writeRandom(t, n)
	if r := testutil.MustRun(t, root, "send", "file", "--file", in); r.Stdout != "" || r.Stderr != "" {
		t.Errorf("send --file is not silent: stdout=%q stderr=%q", r.Stdout, r.Stderr)
	}
	waitSum(t, out, n, sum)
	os.Truncate(out, 0)

	// --paste brackets the whole stream; --file - is standard input.
	cmd := testutil.Command(t, root, "send", "file", "--paste", "--file", "-")
	cmd.Stdin = strings.NewReader("a\nb")
	if r := testutil.RunCmd(t, cmd); r.Code != 0 {
		t.Fatalf("send --paste --file -: exit %d, stderr %q", r.Code, r.Stderr)
	}
	waitBytes(t, out, []byte("\x1b[200~a\nb\x1b[201~"))
	os.Truncate(out, 0)

	// A literal "-" goes in a --seq item.
	testutil.MustRun(t, root, "send", "file", "--seq", "-")
	waitBytes(t, out, []byte("-"))
	os.Truncate(out, 0)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"file", "--file", filepath.Join(root, "nosuch")}, "Cannot read --file"},
		{[]string{"file", "--file", in, "text"}, "not several"},
		{[]string{"file", "--file", in, "--seq", "x"}, "not several"},
	} {
		args := append([]string{"send"}, c.args...)
		r := testutil.Run(t, root, args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and one line with %q", args, r.Code, r.Stderr, c.want)
		}
	}
	testutil.MustRun(t, root, "send", "file", "Z")
	waitBytes(t, out, []byte("Z"))
}

func TestSendWarnsOfKeyAsText(t *testing.T) {
	root := testutil.Root(t)
	out := captureSession(t, root, "kw")
	r := testutil.MustRun(t, root, "send", "kw", "key:ctrl+u")
	if want := "--seq key:ctrl+u"; !strings.Contains(r.Stderr, want) || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
		t.Errorf("send kw key:ctrl+u: stderr %q, want one line with %q", r.Stderr, want)
	}
	waitBytes(t, out, []byte("key:ctrl+u")) // still typed, as the text it is
}
