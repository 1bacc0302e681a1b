package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ptyorg/pty/pkg/remote"
)

// remoteWorkload compares pty --remote HOST with ssh HOST tmux for the
// three things a script asks of another host: its screen (peek --plain
// against capture-pane -p), its sessions (list against list-sessions)
// and a keystroke (send against send-keys). Both go over the same shared
// ssh connection, so the figures compare what each does on top of one
// round trip. The host needs pty (on the PATH of its non-interactive
// shell) and tmux.
func (e *env) remoteWorkload(host string) {
	fmt.Println("remote (pty --remote HOST vs ssh HOST tmux, one shared connection; median of", e.n, "runs):")
	if host == "" {
		fmt.Println("  skipped: give -remote HOST (an ssh destination with pty and tmux installed)")
		return
	}
	cfg, err := remote.LoadConfig(os.Getenv)
	check(err)
	t, err := remote.Resolve(host, cfg)
	check(err)
	d := remote.Dialer{Target: t, Getenv: os.Getenv}
	pty := func(args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(e.bin, "pty"), append([]string{"--remote", host}, args...)...)
	}
	sock := "ptybenchremote" + strconv.Itoa(os.Getpid())
	ssh := func(line string) *exec.Cmd {
		argv, err := d.SSHCommand(line)
		check(err)
		return exec.Command(argv[0], argv[1:]...)
	}
	id := "bench-remote-" + strconv.Itoa(os.Getpid())
	prog := "seq 1 20; exec cat >/dev/null"
	if out, err := pty("run", "-d", "--id", id, "--", "sh", "-c", prog).CombinedOutput(); err != nil {
		fmt.Printf("  skipped: pty run on %s: %v %s\n", host, err, out)
		return
	}
	defer func() {
		pty("kill", id).Run()
		pty("rm", id).Run()
		ssh(remote.ShellQuote("tmux", "-L", sock, "kill-server")).Run()
	}()
	if out, err := ssh(remote.ShellQuote("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "80", "-y", "24", prog)).CombinedOutput(); err != nil {
		fmt.Printf("  skipped: tmux on %s: %v %s\n", host, err, out)
		return
	}
	time.Sleep(200 * time.Millisecond) // both print their 20 lines
	pairs := []struct {
		label     string
		pty, tmux func() *exec.Cmd
	}{
		{"peek --plain / capture-pane -p", func() *exec.Cmd { return pty("peek", "--plain", id) },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "capture-pane", "-p", "-t", "b")) }},
		{"list / list-sessions", func() *exec.Cmd { return pty("list") },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "list-sessions")) }},
		{"send / send-keys", func() *exec.Cmd { return pty("send", id, "x") },
			func() *exec.Cmd { return ssh(remote.ShellQuote("tmux", "-L", sock, "send-keys", "-t", "b", "x")) }},
	}
	for _, p := range pairs {
		var pt, tt []time.Duration
		for i := 0; i < e.n+1; i++ {
			for _, side := range []struct {
				cmd func() *exec.Cmd
				ds  *[]time.Duration
			}{{p.pty, &pt}, {p.tmux, &tt}} {
				c := side.cmd()
				start := time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					fmt.Printf("  %s: %v %s\n", p.label, err, out)
					return
				}
				if i > 0 { // the first run sets up the shared connection
					*side.ds = append(*side.ds, time.Since(start))
				}
			}
		}
		report(p.label, map[string]time.Duration{"pty": medianOf(pt), "tmux": medianOf(tt)})
	}
}
