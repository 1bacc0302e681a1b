package remote

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/proto"
)

// sshHost is an OpenSSH server of the test's own on 127.0.0.1, serving
// the registry root to one key made for the test.
type sshHost struct {
	dir, port string
	logs      *testutil.SyncBuffer
}

// startSSH starts the server; setenv are more variables for the
// commands it runs (SetEnv), PATH=... say.
func startSSH(t *testing.T, root string, setenv ...string) *sshHost {
	t.Helper()
	return startSSHShell(t, root, "", setenv...)
}

// startSSHShell is startSSH whose user (root) logs in with shell, when
// it is not "": sshd runs in a mount namespace of its own, where a copy
// of /etc/passwd giving root that shell is bound over the real one.
func startSSHShell(t *testing.T, root, shell string, setenv ...string) *sshHost {
	t.Helper()
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			testutil.MissingTool(t, p+" (openssh-server, openssh-client)")
		}
	}
	dir, err := os.MkdirTemp("", "rs-ssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, k := range []string{"host", "user"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen: %v %s", err, out)
		}
	}
	pub := func(k string) string {
		b, err := os.ReadFile(filepath.Join(dir, k+".pub"))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(pub("user")+"\n"), 0o600)
	// A port that was free a moment ago; sshd fails at once if it is not.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte("[127.0.0.1]:"+port+" "+pub("host")+"\n"), 0o600)
	conf := strings.Join([]string{
		"ListenAddress 127.0.0.1:" + port,
		"HostKey " + filepath.Join(dir, "host"),
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PermitRootLogin prohibit-password",
		// HOME: the login shell reads its rc files from the test's
		// directory, not the user's: a host with stock shells. The
		// user's may do anything at each login (root's on these
		// machines runs pyenv init, whose rehash lock, left by a login a
		// reconnect test killed mid-start, made every later login wait
		// a minute). The working directory stays the account's home.
		"SetEnv PTY_ROOT=" + strings.Join(append([]string{root}, setenv...), " ") + " HOME=" + dir,
		"LogLevel VERBOSE",
		"",
	}, "\n")
	cfg := filepath.Join(dir, "sshd_config")
	os.WriteFile(cfg, []byte(conf), 0o600)
	if os.Geteuid() == 0 {
		// sshd running as root insists on its privilege separation
		// directory, which the package makes at boot.
		os.MkdirAll("/run/sshd", 0o755)
	}
	cmd := exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfg)
	if shell != "" {
		cmd = loginShell(t, dir, shell, cmd)
	}
	logs := &testutil.SyncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("sshd: %s", logs.String())
		}
	})
	testutil.WaitFor(t, 20*time.Second, "sshd to listen", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return &sshHost{dir, port, logs}
}

// command is "ssh 127.0.0.1 pty remote-serve --stdio" with the test's keys.
func (h *sshHost) command(t *testing.T) *exec.Cmd {
	return exec.Command("ssh", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
		"-i", filepath.Join(h.dir, "user"), "-o", "UserKnownHostsFile="+filepath.Join(h.dir, "known_hosts"),
		"-p", h.port, "127.0.0.1", filepath.Join(testutil.BinDir(t), "pty"), "remote-serve", "--stdio")
}

func TestThroughSSH(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "far", "--", "sh", "-c", "echo far-away; read x; echo typed-$x; sleep 100")
	h := startSSH(t, root)

	list := h.command(t)
	list.Stdin = strings.NewReader(`{"op":"list"}` + "\n")
	r := testutil.RunCmd(t, list)
	var resp struct{ Sessions []row }
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &resp) != nil || len(resp.Sessions) != 1 ||
		resp.Sessions[0].Name != "far" || resp.Sessions[0].Status != "running" {
		t.Fatalf("list over ssh: %+v", r)
	}

	// Route, attach, type, and read the screen change on the same
	// connection.
	rt := h.command(t)
	in, _ := rt.StdinPipe()
	outp, _ := rt.StdoutPipe()
	if err := rt.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); rt.Process.Kill(); rt.Wait() })
	in.Write([]byte(`{"op":"route","name":"far"}` + "\n"))
	br := bufio.NewReader(outp)
	if l := readLine(t, br); l != "{\"ok\":true}\n" {
		t.Fatalf("route ack over ssh: %q", l)
	}
	proto.WriteFrame(in, proto.Attach, proto.Size(24, 80))
	fr := proto.NewReader(br)
	if sc := screen(t, fr); !strings.Contains(sc, "far-away") {
		t.Fatalf("screen over ssh: %q", sc)
	}
	proto.WriteFrame(in, proto.Data, []byte("qq\r"))
	var seen strings.Builder
	// The deadline ends the connection, so a read cannot block past it.
	stop := time.AfterFunc(20*time.Second, func() { rt.Process.Kill() })
	defer stop.Stop()
	for !strings.Contains(seen.String(), "typed-qq") {
		f, err := fr.Next()
		if err != nil {
			t.Fatalf("read over ssh: %v (so far %q)", err, seen.String())
		}
		if f.Type == proto.Data {
			seen.Write(f.Payload)
		}
	}
	proto.WriteFrame(in, proto.Detach, nil)
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ssh after DETACH: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ssh still running 20 s after DETACH")
	}
}
