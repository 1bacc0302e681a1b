package remote

import (
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// muxFleet is a fleet whose PTY_SSH_COMMAND is a wrapper of ssh that
// writes each of its command lines to a log, and whose hosts have the
// plugins pty-xtest, which writes "out:" and its standard input to
// standard output, "to-stderr" to standard error, and exits with its
// argument, and pty-xsleep, which writes "started" and sleeps.
type muxFleet struct {
	*fleet
	wrapper, log string
}

func newMuxFleet(t *testing.T) *muxFleet {
	t.Helper()
	plug := t.TempDir()
	os.WriteFile(filepath.Join(plug, "pty-xtest"), []byte("#!/bin/sh\nprintf out:; cat; echo to-stderr >&2; exit \"$1\"\n"), 0o755)
	os.WriteFile(filepath.Join(plug, "pty-xsleep"), []byte("#!/bin/sh\necho started; exec sleep 60\n"), 0o755)
	f := newFleetPath(t, plug)
	m := &muxFleet{fleet: f, wrapper: filepath.Join(f.dir, "ssh-logged"), log: filepath.Join(f.dir, "ssh.log")}
	f.write(t, "ssh-logged", "#!/bin/sh\necho \"$*\" >>"+m.log+"\nexec ssh -F "+filepath.Join(f.dir, "ssh_config")+" \"$@\"\n")
	os.Chmod(m.wrapper, 0o755)
	f.env = append(f.env, "PTY_SSH_COMMAND="+m.wrapper)
	t.Cleanup(func() { m.ctl("hosta", "exit").Run() })
	return m
}

// ctl is "ssh -O op" for the shared connection to host.
func (m *muxFleet) ctl(host, op string) *exec.Cmd { return masterCtl(m.dir, m.wrapper, host, op) }

// sshRuns are the ssh command lines run since the last call.
func (m *muxFleet) sshRuns() []string {
	b, _ := os.ReadFile(m.log)
	os.Remove(m.log)
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == '\n' })
}

// checks runs the short commands and checks what each gives, whichever
// way it reaches the host.
func (m *muxFleet) checks(t *testing.T, typed string) {
	t.Helper()
	if r := m.mustPty(t, "--remote", "hosta", "peek", "--plain", "far"); !strings.HasPrefix(r.Stdout, "far-away\n") {
		t.Fatalf("peek --plain: %q", r.Stdout)
	}
	if r := m.mustPty(t, "--remote", "hosta", "list", "--json"); !strings.Contains(r.Stdout, `"far"`) {
		t.Fatalf("list --json: %q", r.Stdout)
	}
	if r := m.mustPty(t, "--remote", "hosta", "list"); !strings.Contains(r.Stdout, "far") {
		t.Fatalf("list: %q", r.Stdout)
	}
	// Keys that follow the session's modes, then text, which goes with
	// the route's request.
	m.mustPty(t, "--remote", "hosta", "send", "far", "--seq", typed, "--seq", "key:return")
	m.mustPty(t, "--remote", "hosta", "send", "far", typed+"-text\r")
	testutil.WaitFor(t, 15*time.Second, "typed-"+typed+" on the host", func() bool {
		out := testutil.Run(t, m.rootA, "peek", "--plain", "far").Stdout
		return strings.Contains(out, "typed-"+typed+"\n") && strings.Contains(out, "typed-"+typed+"-text\n")
	})
	// A command run there: its input, output, standard error and exit
	// status.
	for _, code := range []int{0, 7} {
		r := m.pty(t, "in\nput", "--remote", "hosta", "xtest", strconv.Itoa(code))
		if r.Code != code || r.Stdout != "out:in\nput" || r.Stderr != "to-stderr\n" {
			t.Fatalf("pty --remote hosta xtest %d: exit %d, stdout %q, stderr %q", code, r.Code, r.Stdout, r.Stderr)
		}
	}
	if r := m.pty(t, "", "--remote", "hosta", "send", "nosuch", "x"); r.Code != 1 || !strings.Contains(r.Stderr, `session "nosuch" not found`) {
		t.Fatalf("send to a missing session: %+v", r)
	}
}

// While the shared connection to a host is up, a peek, a list, a send
// and a command run there start no ssh process: they go through the
// master's control socket. When the master has gone (stopped, or killed
// and its socket left behind) each runs ssh, which starts a new one, with
// the same results.
func TestRemoteShortCommandsThroughTheMaster(t *testing.T) {
	m := newMuxFleet(t)
	testutil.MustRun(t, m.rootA, "run", "-d", "--id", "far", "--", "sh", "-c", "echo far-away; while read x; do echo typed-$x; done")
	testutil.WaitFor(t, 15*time.Second, "far's output", func() bool {
		return strings.Contains(testutil.Run(t, m.rootA, "peek", "--plain", "far").Stdout, "far-away")
	})
	m.mustPty(t, "--remote", "hosta", "list") // makes the shared connection
	if runs := m.sshRuns(); len(runs) != 1 {
		t.Fatalf("ssh ran %q for the first command, want once", runs)
	}
	m.checks(t, "aa")
	if runs := m.sshRuns(); len(runs) != 0 {
		t.Fatalf("ssh ran with the master up: %q", runs)
	}

	if out, err := m.ctl("hosta", "exit").CombinedOutput(); err != nil {
		t.Fatalf("ssh -O exit: %v %s", err, out)
	}
	m.checks(t, "bb")
	if runs := m.sshRuns(); len(runs) != 1 {
		t.Fatalf("ssh ran %q after the master stopped, want once (it makes a new one)", runs)
	}

	m.killMaster(t, "hosta")
	m.checks(t, "cc")
	if runs := m.sshRuns(); len(runs) != 1 {
		t.Fatalf("ssh ran %q after the master was killed, want once", runs)
	}
	if n := m.a.accepted(); n != 3 {
		t.Fatalf("%d logins, want 3 (one per master)", n)
	}
}

// killMaster kills the master of the shared connection to host, which
// leaves its socket behind.
func (m *muxFleet) killMaster(t *testing.T, host string) {
	t.Helper()
	out, err := m.ctl(host, "check").CombinedOutput()
	pid := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(out)
	if err != nil || pid == nil {
		t.Fatalf("ssh -O check: %v %s", err, out)
	}
	n, _ := strconv.Atoi(string(pid[1]))
	syscall.Kill(n, syscall.SIGKILL)
	testutil.WaitFor(t, 10*time.Second, "the master to die", func() bool { return syscall.Kill(n, 0) != nil })
}

// A command running on the host through the master whose connection
// breaks ends at once, with ssh's status for it (255) and a line that
// says it has none of its own.
func TestRemoteMasterGoneMidCommand(t *testing.T) {
	m := newMuxFleet(t)
	m.mustPty(t, "--remote", "hosta", "list") // makes the shared connection
	cmd := exec.Command(filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hosta", "xsleep")
	cmd.Env = m.env
	var out, errb testutil.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	testutil.WaitFor(t, 15*time.Second, "xsleep to start", func() bool { return strings.Contains(out.String(), "started") })
	m.sshRuns()
	m.killMaster(t, "hosta")
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pty --remote hosta xsleep still running 20 s after its connection broke")
	}
	if code := cmd.ProcessState.ExitCode(); code != 255 || !strings.Contains(errb.String(), "without an exit status") {
		t.Fatalf("exit %d, stderr %q; want 255 and a line saying there is no exit status", code, errb.String())
	}
	if runs := m.sshRuns(); len(runs) != 0 {
		t.Fatalf("ssh ran: %q", runs)
	}
}

// A control socket whose master speaks another version of the protocol
// is left to ssh, which gets the same results.
func TestRemoteUnknownMuxVersionRunsSSH(t *testing.T) {
	m := newMuxFleet(t)
	testutil.MustRun(t, m.rootA, "run", "-d", "--id", "far", "--", "sh", "-c", "echo far-away; while read x; do echo typed-$x; done")
	testutil.WaitFor(t, 15*time.Second, "far's output", func() bool {
		return strings.Contains(testutil.Run(t, m.rootA, "peek", "--plain", "far").Stdout, "far-away")
	})
	args := m.ctl("hosta", "check").Args
	path := strings.TrimPrefix(args[4], "ControlPath=")
	os.MkdirAll(filepath.Dir(path), 0o700)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hellos := make(chan uint32, 100)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var b [12]byte
				if _, err := io.ReadFull(c, b[:]); err == nil {
					hellos <- binary.BigEndian.Uint32(b[8:])
				}
				c.Write([]byte{0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 99})
			}()
		}
	}()
	m.checks(t, "aa")
	if len(hellos) == 0 {
		t.Fatal("nobody said hello to the control socket")
	}
	for len(hellos) > 0 {
		if v := <-hellos; v != 4 {
			t.Fatalf("a hello of version %d", v)
		}
	}
	if runs := m.sshRuns(); len(runs) < 7 {
		t.Fatalf("ssh ran %d times for 7 commands: %q", len(runs), runs)
	}
}
