package remote

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Transport limits (docs/remote.md).
const (
	// ConnectTimeout is ssh's ConnectTimeout: the TCP connection and the
	// server's banner.
	ConnectTimeout = 10 * time.Second
	// ControlPersist is how long the shared connection to a host stays
	// open after its last command.
	ControlPersist = 10 * time.Minute
	// AliveInterval and AliveCount are ssh's ServerAliveInterval and
	// ServerAliveCountMax: a connection whose host stopped answering is
	// given up after about their product, which ends an attach's wait
	// for a dead network and starts its reconnect.
	AliveInterval = 10 * time.Second
	AliveCount    = 3
	// AckWait bounds the wait for remote-serve's answer to a request line
	// once the connection is up (the original's client waits as long).
	AckWait = 10 * time.Second
	// maxStderr is how much of ssh's standard error is kept to explain a
	// failure.
	maxStderr = 8 << 10
)

// sshCommandEnv names the ssh program and its own options, as
// GIT_SSH_COMMAND does for git: split into words at spaces (no shell).
const sshCommandEnv = "PTY_SSH_COMMAND"

// Env is what the transport reads of the environment.
type Env func(string) string

// sshProgram is the ssh program and its own options (PTY_SSH_COMMAND).
func sshProgram(getenv Env) []string {
	if v := strings.Fields(getenv(sshCommandEnv)); len(v) > 0 {
		return v
	}
	return []string{"ssh"}
}

// sshBase is the ssh program and the options every pty connection to t
// uses: batch mode (never a prompt), a bounded connect, keepalives, and
// connection sharing in a private directory.
func (t Target) sshBase(getenv Env) ([]string, error) {
	base := sshProgram(getenv)
	args := append(base[:len(base):len(base)],
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int(ConnectTimeout/time.Second)),
		"-o", "ServerAliveInterval="+strconv.Itoa(int(AliveInterval/time.Second)),
		"-o", "ServerAliveCountMax="+strconv.Itoa(AliveCount))
	path, err := t.ControlPath(getenv)
	if err != nil {
		return nil, err
	}
	return append(args,
		"-o", "ControlMaster=auto",
		"-o", "ControlPersist="+strconv.Itoa(int(ControlPersist/time.Second)),
		"-o", "ControlPath="+path), nil
}

// ControlPath is the socket of the shared connection to t: in the
// private directory (controlDir), named for the ssh command, the
// destination and the port. pty names it itself, where ssh's %C would
// hash what ssh makes of its config, so that it can find the master
// without running ssh (mux.go); a change of PTY_SSH_COMMAND is another
// connection.
func (t Target) ControlPath(getenv Env) (string, error) {
	dir, err := controlDir(getenv)
	if err != nil {
		return "", err
	}
	h := sha1.New()
	for _, w := range sshProgram(getenv) {
		io.WriteString(h, w+"\x00")
	}
	io.WriteString(h, t.SSH+"\x00"+strconv.Itoa(t.Port))
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil))), nil
}

// sunPathMax is the smallest limit of a Unix socket's path among the
// systems pty runs on (macOS's 104 bytes with its terminating NUL).
const sunPathMax = 103

// controlPathRoom is what goes after the control directory: "/", the
// socket's name (40 hex digits, ControlPath) and, while ssh sets up a
// master, "." and 16 random characters.
const controlPathRoom = 1 + 40 + 17

// controlDir is the private directory (0700, ours, not a symbolic link)
// of the sockets of shared ssh connections: under the runtime directory
// when there is one (it goes away at logout, as the connections should),
// else under the cache directory, else in /tmp, whichever first leaves
// the socket's path within the kernel's limit.
func controlDir(getenv Env) (string, error) {
	var cands []string
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		cands = append(cands, filepath.Join(d, "pty-ssh"))
	}
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		cands = append(cands, filepath.Join(d, "pty", "ssh"))
	} else if h := getenv("HOME"); filepath.IsAbs(h) {
		cands = append(cands, filepath.Join(h, ".cache", "pty", "ssh"))
	}
	cands = append(cands, filepath.Join("/tmp", "pty-ssh-"+strconv.Itoa(os.Getuid())))
	var errs []string
	for _, d := range cands {
		if len(d)+controlPathRoom > sunPathMax {
			errs = append(errs, d+": too long for a socket path")
			continue
		}
		if err := privateDir(d); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return d, nil
	}
	return "", fmt.Errorf("no private directory for ssh's shared connections (%s): fix one of them, or set XDG_RUNTIME_DIR to a short private directory", strings.Join(errs, "; "))
}

// privateDir makes d (and its parents) and checks it is a directory of
// ours that nobody else can enter.
func privateDir(d string) error {
	if err := os.MkdirAll(filepath.Dir(d), 0o700); err != nil {
		return err
	}
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", d)
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s is not owned by this user", d)
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(d, 0o700); err != nil {
			return fmt.Errorf("%s is open to others: %v", d, err)
		}
	}
	return nil
}

// sshArgv is the command line that runs remoteCmd (a shell command line
// for the host's login shell) on t. tty asks for a terminal there.
func (t Target) sshArgv(getenv Env, tty bool, remoteCmd string) ([]string, error) {
	args, err := t.sshBase(getenv)
	if err != nil {
		return nil, err
	}
	if tty {
		// With a terminal, ssh's own notices ("Shared connection to HOST
		// closed.") land in the user's terminal after every detach;
		// errors still show.
		args = append(args, "-tt", "-o", "LogLevel=ERROR")
	} else {
		args = append(args, "-T")
	}
	if t.Port != 0 {
		args = append(args, "-p", strconv.Itoa(t.Port))
	}
	return append(args, "--", t.SSH, remoteCmd), nil
}

// The command lines pty runs on a host are read by the user's login
// shell, which may be sh, bash, zsh, ksh, fish, csh or tcsh. They are
// made of words that every one of them reads as written (HostWord), and
// the arguments of a command go in one such word (remoteserve's
// EncodeArgs) that the host's pty-remote-serve decodes. Only the
// original's hosts, which have no pty-remote-serve, get a line for POSIX
// shells and fish (legacyLine).

// HostWord is w as a word of a host's command line: as it is when every
// shell reads it so (letters, digits and _ - . / : , + @, neither = nor %
// first, which zsh and old fish expand), else quoted for POSIX shells
// and fish (ShellQuote), which csh and tcsh may read otherwise.
func HostWord(w string) string {
	if w != "" && w[0] != '=' && w[0] != '%' && strings.Trim(w, plainChars) == "" {
		return w
	}
	return ShellQuote(w)
}

const plainChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:,+@%="

// beside is the program name next to t.Pty: in the same directory when
// t.Pty is a path, else found on the PATH as t.Pty would be.
func (t Target) beside(name string) string {
	if i := strings.LastIndexByte(t.Pty, '/'); i >= 0 {
		return t.Pty[:i+1] + name
	}
	return name
}

// serveLines are the command lines that start remote-serve --stdio on
// t, in the order they are tried: pty-remote-serve itself (one program
// start on the host), then through the dispatcher (the original's hosts,
// and installs whose pty-remote-serve is neither beside t.Pty nor on the
// PATH). The next is tried only when the host's shell did not find the
// program, so nothing of the interaction is lost.
func (t Target) serveLines() []string {
	return []string{
		HostWord(t.beside("pty-remote-serve")) + " --stdio",
		HostWord(t.Pty) + " remote-serve --stdio",
	}
}

// runLines are the command lines that run "pty ARGS" on t (enc is
// EncodeArgs of ARGS), in the order tried, as serveLines: pty-remote-serve
// --run, through the dispatcher, then the original's way (legacyLine).
// mark says whether the last writes the mark on standard error first.
func (t Target) runLines(enc string, args []string, mark bool) []string {
	return []string{
		HostWord(t.beside("pty-remote-serve")) + " --run=" + enc,
		HostWord(t.Pty) + " remote-serve --run=" + enc,
		t.legacyLine(args, mark),
	}
}

// legacyLine runs pty with args on a host that has no pty-remote-serve
// (the original's): each argument quoted for POSIX shells and fish, pty
// looked for first so that its absence is told apart (status 127 and
// nothing on standard error in sh, bash, zsh and fish alike). mark writes
// the mark on standard error first.
func (t Target) legacyLine(args []string, mark bool) string {
	line := "command -v " + ShellQuote(t.Pty) + " >/dev/null 2>&1 || exit 127; exec " + ShellQuote(append([]string{t.Pty}, args...)...)
	if mark {
		line = `printf '\036' >&2; ` + line
	}
	return line
}

// ShellQuote joins words into one command line that a POSIX shell (sh,
// bash, dash, zsh, ksh) and fish all read back as exactly those words:
// each is single-quoted, with ' and \ outside the quotes behind a
// backslash, which both families read the same way (fish would take a
// backslash inside single quotes as an escape). Newlines are kept inside
// quotes, where both keep them.
func ShellQuote(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		// zsh expands a word that starts with =, and fish before 3.0
		// one that starts with %.
		if w != "" && w[0] != '=' && w[0] != '%' && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
			b.WriteString(w)
			continue
		}
		if w == "" {
			b.WriteString("''")
			continue
		}
		open := false
		for _, r := range w {
			if r == '\'' || r == '\\' {
				if open {
					b.WriteByte('\'')
					open = false
				}
				b.WriteByte('\\')
				b.WriteRune(r)
				continue
			}
			if !open {
				b.WriteByte('\'')
				open = true
			}
			b.WriteRune(r)
		}
		if open {
			b.WriteByte('\'')
		}
	}
	return b.String()
}

// tail keeps the last bytes written to it, for explaining a failure.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if len(t.b) > maxStderr {
		t.b = append(t.b[:0], t.b[len(t.b)-maxStderr:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Error is a failure to reach a host, in one line that says what to do.
type Error struct {
	Host string
	Msg  string
	// Transport is set when the host could not be reached or the
	// connection broke (retrying may help), clear when the host answered
	// and refused.
	Transport bool
	// missing is set when the host's shell found no program to run.
	missing bool
}

func (e *Error) Error() string { return e.Msg }

// RefusedError is a route the host refused: it is reachable and says why
// (the session is not there).
type RefusedError struct {
	Host, Reason string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("%s: %s", e.Host, e.Reason) }

// IsTransport reports whether err is a failure of the connection to a
// host (as opposed to an answer from it).
func IsTransport(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Transport
}

// explain turns ssh's exit and standard error into one line. code is the
// exit status of ssh (255: ssh itself failed), or of the remote command.
func (t Target) explain(code int, stderr string, what string) error {
	h := t.Label
	low := strings.ToLower(stderr)
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(low, strings.ToLower(x)) {
				return true
			}
		}
		return false
	}
	last := lastLine(stderr)
	switch {
	case code == 127 || code == 126 || has("pty: not found", "pty: command not found", "unknown command: pty", "pty: no such file"):
		return &Error{Host: h, Msg: fmt.Sprintf("pty is not installed on %s (or not on the PATH of its non-interactive shell): install it there, or set pty = \"/path/to/pty\" under [%s] in remotes.toml", h, h)}
	case code != 255 && code >= 0:
		if last != "" {
			return &Error{Host: h, Msg: fmt.Sprintf("%s on %s failed: %s", what, h, last)}
		}
		return &Error{Host: h, Msg: fmt.Sprintf("%s on %s failed (exit status %d)", what, h, code)}
	case has("host key verification failed", "no ed25519 host key is known", "host key is known", "no host key is known"):
		if has("identification has changed") {
			return &Error{Host: h, Msg: fmt.Sprintf("%s's host key has changed since it was recorded: check with its administrator, then fix known_hosts (ssh-keygen -R %s)", h, t.SSH)}
		}
		return &Error{Host: h, Msg: fmt.Sprintf("%s's host key is not known: run 'ssh %s' once to check and accept it (pty never answers ssh's questions)", h, t.SSH)}
	case has("permission denied", "too many authentication failures", "no supported authentication"):
		return &Error{Host: h, Msg: fmt.Sprintf("%s refused the login: it needs a password or a key ssh does not have, and pty runs ssh in batch mode, which cannot prompt; install a key (ssh-copy-id %s) or load it into ssh-agent", h, t.SSH)}
	case has("could not resolve hostname", "name or service not known", "nodename nor servname"):
		return &Error{Host: h, Transport: true, Msg: fmt.Sprintf("%s: unknown host name: check the name, or add it to ~/.ssh/config or remotes.toml", h)}
	case has("connection refused"):
		return &Error{Host: h, Transport: true, Msg: fmt.Sprintf("%s is unreachable: connection refused (is sshd running on %s?)", h, t.hostPort())}
	case has("timed out", "no route to host", "network is unreachable", "connection closed", "connection reset", "broken pipe", "timeout"):
		return &Error{Host: h, Transport: true, Msg: fmt.Sprintf("%s is unreachable: %s; check the network and that 'ssh %s' works", h, strings.TrimPrefix(last, "ssh: "), t.SSH)}
	}
	if last == "" {
		last = "ssh exited with status 255"
	}
	return &Error{Host: h, Transport: true, Msg: fmt.Sprintf("cannot reach %s: %s; check that 'ssh %s' works", h, last, t.SSH)}
}

func lastLine(s string) string {
	var last string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Warning: Permanently added") {
			last = l
		}
	}
	return last
}

// exitCode is the exit status of a finished command, -1 when it did not
// exit normally.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return -1
}

// maxList bounds a list response: sessions are a few hundred bytes each.
const maxList = 16 << 20
