package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/remoteserve"
)

// Dialer reaches the sessions of one host.
type Dialer struct {
	Target Target
	Getenv Env
	// Lasting says that its routes and commands carry an attach or a
	// follow, not one short exchange: each has an ssh process of its own
	// (onMaster).
	Lasting bool
}

// Route connects to session REF on the host, resolved there by the usual
// rules, and returns a client connection to its daemon. A host that
// answers that it has no such session gives a *RefusedError; a host that
// cannot be reached, an *Error.
//
// early are bytes for the daemon sent right behind the request line, in
// the same write (remote-serve passes them on once it has connected), so
// that a request such as a PEEK costs no round trip of its own; a host
// that refuses the route drops them.
func (d Dialer) Route(ctx context.Context, ref string, early ...byte) (*client.Conn, *Stream, error) {
	return d.Target.route(ctx, d.Getenv, ref, d.Lasting, early...)
}

// Label is how messages call the host.
func (d Dialer) Label() string { return d.Target.Label }

// Ready says whether commands can run on the host at all: a fabric peer
// carries only remote-serve's protocol.
func (d Dialer) Ready(ctx context.Context) error {
	if t := d.Target; t.Fabric != "" {
		return &Error{Host: t.Label, Msg: fmt.Sprintf("%s is a fabric peer: only list, peek, send and attach reach it (fabric carries pty's remote protocol, not commands)", t.Label)}
	}
	return nil
}

// Run runs "pty ARGS" on the host with the given standard streams and
// returns its exit status. The arguments reach pty there as they are
// here, whatever the host's login shell: they travel encoded in one word
// that pty-remote-serve --run decodes (runLines). tty asks for a
// terminal on the host, for commands that attach or prompt.
//
// What ssh itself says before the command starts (a refused login, an
// unknown host key) is held back and explained in one line: the host's
// pty-remote-serve writes a mark on standard error first, and only what
// follows it is the command's. Standard input is passed on only after
// the mark, so that a line the host could not run (it has no
// pty-remote-serve) has taken none of it, and the next is tried. A
// terminal merges the two streams there, so with tty the line is chosen
// first by running "pty --version" without one (which also makes the
// shared connection), then run.
func (d Dialer) Run(ctx context.Context, args []string, stdin, stdout, stderr *os.File, tty bool) (int, error) {
	if err := d.Ready(ctx); err != nil {
		return 1, err
	}
	enc, err := remoteserve.EncodeArgs(args)
	if err != nil {
		return 1, err
	}
	if !tty {
		return d.runMarked(ctx, d.Target.runLines(enc, args, true), stdin, stdout, stderr)
	}
	probe, _ := remoteserve.EncodeArgs([]string{"--version"})
	ctx2, cancel := context.WithTimeout(ctx, 3*(ConnectTimeout+AckWait))
	i, err := d.chooseLine(ctx2, d.Target.runLines(probe, []string{"--version"}, true))
	cancel()
	if err != nil {
		return 1, err
	}
	argv, err := d.Target.sshArgv(d.Getenv, true, d.Target.runLines(enc, args, false)[i])
	if err != nil {
		return 1, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	code := exitCode(err)
	if code < 0 {
		return 1, fmt.Errorf("ssh to %s: %v", d.Target.Label, err)
	}
	return code, nil
}

// chooseLine is the index of the first of lines that runs on the host,
// found by running them in turn with no input and no output kept.
func (d Dialer) chooseLine(ctx context.Context, lines []string) (int, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	var i int
	_, err = d.runLines(ctx, lines, devnull, io.Discard, io.Discard, &i)
	return i, err
}

// runMarked runs the first of lines that the host can run (see Run).
func (d Dialer) runMarked(ctx context.Context, lines []string, stdin *os.File, stdout, stderr io.Writer) (int, error) {
	return d.runLines(ctx, lines, stdin, stdout, stderr, nil)
}

func (d Dialer) runLines(ctx context.Context, lines []string, stdin *os.File, stdout, stderr io.Writer, chosen *int) (int, error) {
	t := d.Target
	for i, line := range lines {
		code, g, err := d.runOnce(ctx, line, stdin, stdout, stderr)
		if err != nil {
			return 1, err
		}
		g.mu.Lock()
		opened, held, after := g.open, g.held.String(), g.after
		g.mu.Unlock()
		switch {
		case opened && code == 127 && !after:
			return 1, t.explain(code, "", "pty") // legacyLine's pty is not there
		case opened:
			if chosen != nil {
				*chosen = i
			}
			return code, nil
		case code == 255 || i == len(lines)-1:
			return 1, t.explain(code, held, "pty")
		case i == 1 && (code == 127 || notFound(held)):
			// The dispatcher itself is not there.
			return 1, t.explain(127, "", "pty")
		}
		// The host's shell did not find the program (or it is a pty
		// without remote-serve --run): the next line is tried.
	}
	return 1, errors.New("unreachable")
}

// runOnce runs one line on the host, passing stdin on once the mark has
// come.
func (d Dialer) runOnce(ctx context.Context, line string, stdin *os.File, stdout, stderr io.Writer) (int, *gate, error) {
	t := d.Target
	argv, err := t.sshArgv(d.Getenv, false, line)
	if err != nil {
		return 1, nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return 1, nil, err
	}
	defer pw.Close()
	var once sync.Once
	g := &gate{w: stderr, onOpen: func() {
		once.Do(func() {
			go func() {
				io.Copy(pw, stdin)
				pw.Close()
			}()
		})
	}}
	if !d.Lasting {
		if code, ok := d.runOnMaster(ctx, line, pr, stdout, g); ok {
			pr.Close()
			return code, g, nil
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pr, stdout, g
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	pr.Close()
	if err != nil {
		return 1, nil, fmt.Errorf("start ssh: %w (is OpenSSH's ssh installed?)", err)
	}
	err = cmd.Wait()
	code := exitCode(err)
	if code < 0 {
		return 1, nil, fmt.Errorf("ssh to %s: %v", t.Label, err)
	}
	return code, g, nil
}

// runOnMaster runs line through the shared connection's master when it
// is up (onMaster); ok is false when it is not, and nothing ran. The
// command writes to stdout itself when it is a file (the user's standard
// output, say).
func (d Dialer) runOnMaster(ctx context.Context, line string, stdin *os.File, stdout io.Writer, stderr io.Writer) (code int, ok bool) {
	out, _ := stdout.(*os.File)
	var copied chan struct{}
	if out == nil {
		pr, pw, err := os.Pipe()
		if err != nil {
			return 0, false
		}
		defer pr.Close()
		defer pw.Close()
		out = pw
		copied = make(chan struct{})
		go func() { io.Copy(stdout, pr); close(copied) }()
	}
	m, err := d.Target.startOnMaster(d.Getenv, line, stdin, out, stderr)
	if copied != nil {
		out.Close()
	}
	if err != nil {
		return 0, false
	}
	stop := context.AfterFunc(ctx, m.kill)
	defer stop()
	code = m.wait()
	if copied != nil {
		<-copied
	}
	return code, true
}

// notFound says whether a shell's words say it found no such command:
// sh, bash, zsh and fish exit 127, csh and tcsh 1 ("Command not found.").
func notFound(stderr string) bool {
	low := strings.ToLower(stderr)
	return strings.Contains(low, "not found") || strings.Contains(low, "no such file") || strings.Contains(low, "unknown command")
}

// gateMark is the byte the host's shell writes first on standard error.
const gateMark = 0x1e

// gate holds what comes on ssh's standard error until the host's shell
// marks where the command's own begins, then passes it on.
type gate struct {
	w      io.Writer
	onOpen func() // called when the mark comes
	mu     sync.Mutex
	open   bool
	held   tail
	after  bool // something came after the mark
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
		if g.onOpen != nil {
			g.onOpen()
		}
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
