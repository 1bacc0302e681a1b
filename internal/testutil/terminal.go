package testutil

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/pkg/term"
)

// Terminal is a pseudo-terminal standing in for the user's, with a client
// (pty attach, peek -f, the original pty's) running on it. Everything the
// client writes is kept raw and fed to an emulator, so a test can check
// both the bytes and the screen the user would see.
type Terminal struct {
	Cmd *exec.Cmd
	f   *os.File

	mu     sync.Mutex
	raw    bytes.Buffer
	screen *term.Screen
	done   chan struct{}
	code   int
}

// StartTerminal starts cmd on a new rows x cols terminal and stops it when
// the test ends.
func StartTerminal(t testing.TB, cmd *exec.Cmd, rows, cols int) *Terminal {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatalf("start %v on a terminal: %v", cmd.Args, err)
	}
	u := &Terminal{Cmd: cmd, f: f, screen: term.New(rows, cols, term.Options{}), done: make(chan struct{})}
	go func() {
		b := make([]byte, 32<<10)
		for {
			n, err := f.Read(b)
			u.mu.Lock()
			u.raw.Write(b[:n])
			u.screen.Write(b[:n])
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			u.code = ee.ExitCode()
		}
		close(u.done)
	}()
	t.Cleanup(func() {
		select {
		case <-u.done:
		default:
			cmd.Process.Kill()
			<-u.done
		}
		f.Close()
	})
	return u
}

// TTYName is the terminal's device (/dev/pts/N), as the client sees it.
func (u *Terminal) TTYName() string {
	if f, ok := u.Cmd.Stdin.(*os.File); ok {
		return f.Name()
	}
	return ""
}

// Output is everything the client has written so far.
func (u *Terminal) Output() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.raw.String()
}

// Lines is the emulated screen's text, trailing spaces and blank lines
// dropped.
func (u *Terminal) Lines() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return PlainLines(strings.Join(u.screen.Lines(false), "\n"))
}

// Cell is one cell of the emulated screen.
func (u *Terminal) Cell(row, col int) term.Cell {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.screen.Cell(row, col)
}

// WaitOutput waits until the client has written sub.
func (u *Terminal) WaitOutput(t testing.TB, sub string) {
	t.Helper()
	WaitFor(t, 10*time.Second, "the terminal to show "+strings.TrimSpace(sub), func() bool { return strings.Contains(u.Output(), sub) })
}

// WaitLines waits until the emulated screen shows exactly want.
func (u *Terminal) WaitLines(t testing.TB, want []string, what string) {
	t.Helper()
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = u.Lines()
		if strings.Join(got, "\n") == strings.Join(want, "\n") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the terminal shows\n%q\nwant\n%q\nraw output: %q", what, got, want, u.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Write types s.
func (u *Terminal) Write(t testing.TB, s string) {
	t.Helper()
	if _, err := u.f.Write([]byte(s)); err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
}

// Resize changes the terminal's size; the client gets SIGWINCH.
func (u *Terminal) Resize(t testing.TB, rows, cols int) {
	t.Helper()
	if err := pty.Setsize(u.f, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
}

// Exit waits up to 10 s for the client to end and returns its exit code.
func (u *Terminal) Exit(t testing.TB) int {
	t.Helper()
	select {
	case <-u.done:
		return u.code
	case <-time.After(10 * time.Second):
		t.Fatalf("%v did not exit; output: %q", u.Cmd.Args, u.Output())
		return -1
	}
}

// PlainLines splits plain screen text into lines, dropping trailing spaces
// and trailing blank lines, so screens compare by what is visible.
func PlainLines(s string) []string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// AssertCookedTerminal fails t unless u's terminal is back in cooked mode
// (canonical input and echo), as a shell expects it once the client ended.
func AssertCookedTerminal(t testing.TB, u *Terminal) {
	t.Helper()
	tty, err := os.OpenFile(u.TTYName(), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
	if err != nil {
		t.Fatal(err)
	}
	if tio.Lflag&unix.ICANON == 0 || tio.Lflag&unix.ECHO == 0 {
		t.Errorf("the terminal was left in raw mode (lflag %#x)", tio.Lflag)
	}
}
