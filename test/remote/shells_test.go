package remote

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
)

// loginShell returns cmd (sshd) run where root's login shell is shell: a
// mount namespace of its own, with a copy of /etc/passwd that says so
// bound over the real one. It needs root, unshare and mount.
func loginShell(t *testing.T, dir, shell string, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		testutil.MissingTool(t, "root (to give sshd's user another login shell)")
	}
	for _, p := range []string{"unshare", "mount"} {
		if _, err := exec.LookPath(p); err != nil {
			testutil.MissingTool(t, p+" (util-linux, mount)")
		}
	}
	b, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if f := strings.Split(l, ":"); len(f) == 7 && f[0] == "root" {
			f[6] = shell
			l = strings.Join(f, ":")
		}
		out = append(out, l)
	}
	passwd := filepath.Join(dir, "passwd")
	if err := os.WriteFile(passwd, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c",
		`mount --bind "$0" /etc/passwd && exec "$@"`, passwd}, cmd.Args...)...)
}

// shellFleet is one host, hostx, whose user logs in with shell; rootA is
// its registry.
func shellFleet(t *testing.T, shell string) *fleet {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		testutil.MissingTool(t, shell)
	}
	f := &fleet{local: testutil.Root(t), rootA: testutil.Root(t)}
	f.a = startSSHShell(t, f.rootA, path, "PATH="+testutil.BinDir(t)+":/usr/local/bin:/usr/bin:/bin")
	dir, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	f.dir = dir
	t.Cleanup(func() {
		stopMasters(dir)
		os.RemoveAll(dir)
	})
	f.write(t, "ssh_config", fmt.Sprintf("Host hostx\n  HostName 127.0.0.1\n  Port %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n",
		f.a.port, filepath.Join(f.a.dir, "user"), filepath.Join(f.a.dir, "known_hosts")))
	f.write(t, "pty/remotes.toml", "[hostx]\nssh = \"hostx\"\n")
	os.MkdirAll(filepath.Join(dir, "run"), 0o700)
	f.env = append(testutil.Env(t, f.local),
		"PTY_SSH_COMMAND=ssh -F "+filepath.Join(dir, "ssh_config"),
		"XDG_CONFIG_HOME="+dir, "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"))
	// The host's shell is the one asked for.
	argv := []string{"ssh", "-F", filepath.Join(dir, "ssh_config"), "-o", "BatchMode=yes", "hostx", "echo $SHELL"}
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != path {
		t.Fatalf("the login shell on hostx: %q %v, want %s", out, err, path)
	}
	return f
}

// hostile are arguments that a shell would read otherwise if they were
// not passed as they are.
var hostile = []string{"a;b", "it's", `"dq"`, "sp ace", "new\nline", "$(echo no)", "`echo no`", `back\slash`, `\\`, `\'`,
	"", "*", "$HOME", "-x", "!x", "a!b", "~", "=x", "%x", "a#b", "{a,b}", "é ü", "x|y&z", "(p)", "<in>", "'", `"`, `\`}

// Commands on a host reach it as they are here whatever the user's login
// shell there (csh and tcsh read a POSIX-quoted word otherwise): the
// arguments of a command run there, its standard input, output and exit
// status, the list, peek, send, and a command with a terminal there.
func TestRemoteLoginShells(t *testing.T) {
	for _, shell := range []string{"tcsh", "fish", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			f := shellFleet(t, shell)
			args := append([]string{"--remote", "hostx", "run", "-d", "--id", "hostile", "--", "printf", "<%s>\\n"}, hostile...)
			f.mustPty(t, args...)
			var want strings.Builder
			for _, h := range hostile {
				want.WriteString("<" + h + ">\n")
			}
			testutil.WaitFor(t, 15*time.Second, "the printf to finish", func() bool {
				return strings.Contains(testutil.Run(t, f.rootA, "list", "--json", "--status", "exited").Stdout, "hostile")
			})
			got := testutil.Run(t, f.rootA, "peek", "--plain", "--full", "hostile").Stdout
			if !strings.Contains(got, strings.TrimSuffix(want.String(), "\n")) {
				t.Fatalf("the arguments on the host (%s):\n%s\nwant:\n%s", shell, got, want.String())
			}

			// Exit status and standard error; standard input.
			if r := f.pty(t, "", "--remote", "hostx", "kill", "nosuch"); r.Code != 1 || !strings.Contains(r.Stderr, "nosuch") || strings.Contains(r.Stderr, "\x1e") {
				t.Fatalf("kill nosuch on the host: %+v", r)
			}
			f.mustPty(t, "--remote", "hostx", "run", "-d", "--id", "st", "--", "sh", "-c", "echo st-ready; while read x; do echo typed-$x; done")
			if r := f.pty(t, `{"k":"it's $HOME"}`, "--remote", "hostx", "state", "set", "st", "k", "-"); r.Code != 0 {
				t.Fatalf("state set - on the host: %+v", r)
			}
			if r := testutil.MustRun(t, f.rootA, "state", "get", "st", "k"); strings.TrimSpace(r.Stdout) != `{"k":"it's $HOME"}` {
				t.Fatalf("the value the host got from our standard input: %q", r.Stdout)
			}

			// list (on the host), list --json, peek and send (routes).
			if r := f.mustPty(t, "--remote", "hostx", "list", "--status", "running"); !strings.Contains(r.Stdout, "st") || strings.Contains(r.Stdout, "hostile") {
				t.Fatalf("list on the host: %+v", r)
			}
			if r := f.mustPty(t, "--remote", "hostx", "list", "--json"); !strings.Contains(r.Stdout, `"name":"st"`) {
				t.Fatalf("list --json: %+v", r)
			}
			f.mustPty(t, "--remote", "hostx", "send", "st", "--seq", "a;b $(x)", "--seq", "key:return")
			testutil.WaitFor(t, 15*time.Second, "the send on the host", func() bool {
				return strings.Contains(f.mustPty(t, "--remote", "hostx", "peek", "--plain", "st").Stdout, "typed-a;b $(x)")
			})

			// A terminal on the host (ssh -tt).
			tm := testutil.StartUserTmuxCmd(t, 24, 100, f.env, filepath.Join(testutil.BinDir(t), "pty"), "--remote", "hostx", "list", "--filter-tag", "no=such tag")
			tm.WaitText("No sessions match.")
		})
	}
}

// A host whose pty-remote-serve is not beside the pty remotes.toml names
// (a link to it, elsewhere) is reached through that pty's dispatcher; one
// whose pty cannot run remote-serve --run (the original's, which answers
// with its usage) runs commands the original's way, quoted for its
// POSIX shell. Arguments, input, output and exit status are carried all
// the same, and nothing of the input is lost to the lines tried first.
func TestRemoteFallbackLines(t *testing.T) {
	f := newFleet(t)
	testutil.MustRun(t, f.rootA, "run", "-d", "--id", "far", "--", "sh", "-c", "echo far-away; while read x; do echo typed-$x; done")
	linked := filepath.Join(f.dir, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(filepath.Join(testutil.BinDir(t), "pty"), filepath.Join(linked, "pty")); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(f.dir, "old")
	os.MkdirAll(old, 0o755)
	os.WriteFile(filepath.Join(old, "pty"), []byte("#!/bin/sh\ncase \"$1 $2\" in \"remote-serve --run=\"*) echo 'Usage: pty remote-serve (--stdio | --socket <path>)' >&2; exit 1;; esac\nexec "+
		filepath.Join(testutil.BinDir(t), "pty")+" \"$@\"\n"), 0o755)
	for _, dir := range []string{linked, old} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f.write(t, "pty/remotes.toml", "[hosta]\nssh = \"hosta\"\npty = \""+filepath.Join(dir, "pty")+"\"\n")
			if r := f.mustPty(t, "--remote", "hosta", "list", "--json"); !strings.Contains(r.Stdout, `"name":"far"`) {
				t.Fatalf("list --json: %+v", r)
			}
			if r := f.mustPty(t, "--remote", "hosta", "peek", "--plain", "far"); !strings.Contains(r.Stdout, "far-away") {
				t.Fatalf("peek: %+v", r)
			}
			id := "h" + filepath.Base(dir)
			f.mustPty(t, append([]string{"--remote", "hosta", "run", "-d", "--id", id, "--", "printf", "<%s>\\n"}, "a;b", "it's", "sp ace", "$(echo no)", `back\slash`)...)
			testutil.WaitFor(t, 15*time.Second, "the printf", func() bool {
				return strings.Contains(testutil.Run(t, f.rootA, "peek", "--plain", id).Stdout, "<a;b>\n<it's>\n<sp ace>\n<$(echo no)>\n<back\\slash>")
			})
			if r := f.pty(t, "", "--remote", "hosta", "kill", "nosuch"); r.Code != 1 || !strings.Contains(r.Stderr, "nosuch") {
				t.Fatalf("kill nosuch: %+v", r)
			}
			if r := f.pty(t, `{"from":"`+id+`"}`, "--remote", "hosta", "state", "set", "far", "k", "-"); r.Code != 0 {
				t.Fatalf("state set -: %+v", r)
			}
			if r := testutil.MustRun(t, f.rootA, "state", "get", "far", "k"); strings.TrimSpace(r.Stdout) != `{"from":"`+id+`"}` {
				t.Fatalf("the standard input the host got: %q", r.Stdout)
			}
		})
	}
}
