// Package tty holds what a command needs of its terminal before it
// attaches to a session, or when it never does: the terminal's size and
// a guard against the quit key. It is apart from pkg/client so that
// pty run -d (cmd/pty-run), which never attaches, reads the size without
// linking the attach client and its terminal emulator.
package tty

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/proto"
)

// Size returns the size of the first terminal among fs, else 24x80,
// within the largest size a session may have (proto.MaxRows, MaxCols).
func Size(fs ...*os.File) (rows, cols int) {
	for _, f := range fs {
		if f == nil {
			continue
		}
		if c, r, err := term.GetSize(int(f.Fd())); err == nil && r > 0 && c > 0 {
			return proto.ClampSize(r, c)
		}
	}
	return 24, 80
}

// IgnoreQuitKey keeps a stray Ctrl+\ from killing this process while its
// terminal is not in raw mode (before raw mode is set, or while the picker
// hands the terminal to an attach and back): the terminal turns the key
// into SIGQUIT, whose default action is a core dump. The signal is caught
// and dropped rather than ignored, so programs this process starts (a
// session's daemon, and through it the user's shell) get the default
// disposition back at exec.
func IgnoreQuitKey() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGQUIT)
}

// IgnoreQuitKeyStartingPty is IgnoreQuitKey for a process that starts no
// program but pty's own (pty-run: pty-daemon for -d, else pty-run-attach):
// the key is ignored outright, which costs no threads, where catching it
// starts two (the runtime's signal-mask thread and the os/signal watcher),
// a good part of the start of a short-lived command. The inherited
// disposition goes no further: those programs are Go programs, whose
// runtime installs its own handler for SIGQUIT whatever it inherited (it
// keeps an inherited SIG_IGN only for SIGHUP and SIGINT), so the command a
// daemon starts gets the default back as IgnoreQuitKey's children do
// (test/run's TestRunDetachedLeavesQuitToTheCommand).
func IgnoreQuitKeyStartingPty() {
	signal.Ignore(syscall.SIGQUIT)
}
