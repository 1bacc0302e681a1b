package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/client"
)

// Dialer reaches the sessions of one host.
type Dialer struct {
	Target Target
	Getenv Env
}

// Route is Target.Route with the dialer's environment.
func (d Dialer) Route(ctx context.Context, ref string, early ...byte) (*client.Conn, *Stream, error) {
	return d.Target.Route(ctx, d.Getenv, ref, early...)
}

// Label is how messages call the host.
func (d Dialer) Label() string { return d.Target.Label }

// Ready makes sure a command can run on the host: a shared connection to
// it is up (one cheap local check when it is), else one is made with a
// run of "pty --version" whose failure is explained in one line. Then
// the real command's own output is all the user sees.
func (d Dialer) Ready(ctx context.Context) error {
	t := d.Target
	if t.Fabric != "" {
		return &Error{Host: t.Label, Msg: fmt.Sprintf("%s is a fabric peer: only list, peek, send and attach reach it (fabric carries pty's remote protocol, not commands)", t.Label)}
	}
	base, err := sshBase(d.Getenv)
	if err != nil {
		return err
	}
	check := append(base, "-O", "check")
	if t.Port != 0 {
		check = append(check, "-p", fmt.Sprint(t.Port))
	}
	check = append(check, "--", t.SSH)
	c := exec.CommandContext(ctx, check[0], check[1:]...)
	c.WaitDelay = time.Second
	if c.Run() == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout+AckWait)
	defer cancel()
	_, err = t.output(ctx, d.Getenv, t.ptyCommand("--version"), nil)
	return err
}

// Run runs "pty ARGS" on the host with the given standard streams and
// returns its exit status. The arguments reach pty there as they are
// here (ShellQuote). tty asks for a terminal on the host, for commands
// that attach or prompt.
//
// What ssh itself says before the host's shell runs (a refused login,
// an unknown host key) is held back and explained in one line: the
// shell writes a marker byte on standard error first, and only what
// follows it is the command's. A terminal merges the two streams there,
// so with tty the connection is made and checked first (Ready) instead.
func (d Dialer) Run(ctx context.Context, args []string, stdin, stdout, stderr *os.File, tty bool) (int, error) {
	if d.Target.Fabric != "" || tty {
		if err := d.Ready(ctx); err != nil {
			return 1, err
		}
	}
	// The check says "not installed" the same way whatever the host's
	// shell (sh, bash, zsh and fish all have command -v): status 127 and
	// nothing on standard error.
	t := d.Target
	line := "command -v " + ShellQuote(t.Pty) + " >/dev/null 2>&1 || exit 127; " + t.ptyCommand(args...)
	g := &gate{w: stderr, open: tty}
	if !tty {
		line = `printf '\036' >&2; ` + line
	}
	argv, err := t.sshArgv(d.Getenv, tty, line)
	if err != nil {
		return 1, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, g
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	code := exitCode(err)
	g.mu.Lock()
	opened, held, after := g.open, g.held.String(), g.after
	g.mu.Unlock()
	switch {
	case code < 0:
		return 1, fmt.Errorf("ssh to %s: %v", t.Label, err)
	case !opened:
		return 1, t.explain(255, held, "pty")
	case code == 127 && !after:
		return 1, t.explain(code, "", "pty")
	}
	return code, nil
}

// gateMark is the byte the host's shell writes first on standard error.
const gateMark = 0x1e

// gate holds what comes on ssh's standard error until the host's shell
// marks where the command's own begins, then passes it on.
type gate struct {
	w     io.Writer
	mu    sync.Mutex
	open  bool
	held  tail
	after bool // something came after the mark
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(p)
	if !g.open {
		i := bytes.IndexByte(p, gateMark)
		if i < 0 {
			g.held.Write(p)
			return n, nil
		}
		g.held.Write(p[:i])
		g.open, p = true, p[i+1:]
	}
	if len(p) > 0 {
		g.after = true
		g.w.Write(p)
	}
	return n, nil
}

// SSHCommand is the ssh command line pty runs line (a command line for
// the host's shell) with: the same options and shared connection as
// pty's own (for comparisons, such as bench's ssh HOST tmux ...).
func (d Dialer) SSHCommand(line string) ([]string, error) {
	return d.Target.sshArgv(d.Getenv, false, line)
}
