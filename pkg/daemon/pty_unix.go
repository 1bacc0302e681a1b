package daemon

import (
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ptyorg/pty/internal/errs"
)

// openPTY opens a pty pair of the given size. creack/pty hands back a
// master that os.File.Fd() has switched to blocking mode; we re-wrap a
// non-blocking duplicate so reads and writes go through the runtime poller
// and Close interrupts them.
func openPTY(rows, cols int) (master, tty *os.File, err error) {
	m, t, err := pty.Open()
	if err != nil {
		return nil, nil, errs.Wrap("open pty", err)
	}
	fd, err := unix.Dup(int(m.Fd()))
	m.Close()
	if err != nil {
		t.Close()
		return nil, nil, errs.Wrap("open pty", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		t.Close()
		return nil, nil, errs.Wrap("open pty", err)
	}
	master = os.NewFile(uintptr(fd), "ptmx")
	if err := setSize(master, rows, cols); err != nil {
		master.Close()
		t.Close()
		return nil, nil, err
	}
	return master, t, nil
}

// setSize sets the window size without Fd(), which would make the file
// blocking again.
func setSize(f *os.File, rows, cols int) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	cerr := sc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	})
	if cerr != nil {
		return cerr
	}
	return ierr
}
