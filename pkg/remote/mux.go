package remote

import (
	"io"
	"os"

	"github.com/ptyorg/pty/internal/sshmux"
)

// onMaster is a command line running on a host through the master of
// the shared connection, with no ssh process (internal/sshmux): what a
// short command (a list, a peek, a send, a command run there) does while
// the connection is up. The first command to a host starts the master by
// running ssh, as does any command when the master does not answer or
// refuses; the routes that last (attach, peek -f, pty web) keep an ssh
// process of their own (Dialer.Lasting), which PTY_SSH_COMMAND's program
// wraps and a user can see and end.
type onMaster struct {
	s      *sshmux.Session
	stderr io.Writer
	copied chan struct{} // closed when the last of its standard error is passed on
}

// startOnMaster runs line on t through its master, with stdin and stdout
// as the command's and its standard error written to stderr. An error
// means the command did not start: ssh is to be run instead.
func (t Target) startOnMaster(getenv Env, line string, stdin, stdout *os.File, stderr io.Writer) (*onMaster, error) {
	path, err := t.ControlPath(getenv)
	if err != nil {
		return nil, err
	}
	er, ew, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s, err := sshmux.Start(path, line, os.Environ(), stdin, stdout, ew, AckWait)
	ew.Close()
	if err != nil {
		er.Close()
		return nil, err
	}
	m := &onMaster{s: s, stderr: stderr, copied: make(chan struct{})}
	go func() {
		io.Copy(stderr, er)
		er.Close()
		close(m.copied)
	}()
	return m, nil
}

// wait is the command's exit status once it has ended and its standard
// error has been passed on: 255 as ssh's when the master said none (the
// connection broke, or the command was killed by a signal), after which
// a line saying so is written to stderr, as ssh's would be.
func (m *onMaster) wait() int {
	code, exited := m.s.Wait()
	<-m.copied
	if !exited {
		io.WriteString(m.stderr, "ssh: the command ended without an exit status (killed by a signal, or the shared connection closed)\n")
	}
	return code
}

// kill ends the command: the master closes the host's side of it.
func (m *onMaster) kill() { m.s.Close() }
