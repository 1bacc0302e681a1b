package kill

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyorg/pty/internal/testutil"
	"github.com/ptyorg/pty/pkg/layout"
)

// listed is the "how it ended" column of id's row in pty list.
func listed(t *testing.T, root, id string) string {
	t.Helper()
	out := testutil.MustRun(t, root, "list").Stdout
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == id {
			if m := regexp.MustCompile(`(killed \(\w+\)|exit -?\d+|exit \?), `).FindStringSubmatch(line); m != nil {
				return m[1]
			}
			return line
		}
	}
	t.Fatalf("%s not in the list:\n%s", id, out)
	return ""
}

func peekHas(t *testing.T, root, id, text string, n int) {
	t.Helper()
	testutil.WaitForState(t, 10*time.Second, id+" to show "+text, func() (bool, string) {
		r := testutil.Run(t, root, "peek", "--plain", id)
		return strings.Count(r.Stdout, text) >= n, r.Stdout
	})
}

// pty kill stops an interactive shell as closing its terminal does: the
// shell gets SIGHUP and saves its history, as with tmux kill-session,
// instead of ignoring SIGTERM until a SIGKILL loses what was typed.
func TestKillHangsUpAShellWhichSavesItsHistory(t *testing.T) {
	for _, sh := range []string{"bash", "zsh"} {
		t.Run(sh, func(t *testing.T) {
			if _, err := exec.LookPath(sh); err != nil {
				testutil.MissingTool(t, sh+" (apt-get install "+sh+")")
			}
			root := testutil.Root(t)
			dir := t.TempDir()
			hist := filepath.Join(dir, "history")
			args := []string{"run", "-d", "--id", sh, "--env", "HISTFILE=" + hist, "--env", "PS1=ready> "}
			if sh == "bash" {
				args = append(args, "--", "bash", "--norc", "-i")
			} else {
				// zsh saves history only with SAVEHIST set, and reads its
				// settings from $ZDOTDIR/.zshrc.
				rc := "HISTFILE=" + hist + "\nSAVEHIST=100\nHISTSIZE=100\nPS1='ready> '\n"
				if err := os.WriteFile(filepath.Join(dir, ".zshrc"), []byte(rc), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--env", "ZDOTDIR="+dir, "--", "zsh", "-i")
			}
			testutil.MustRun(t, root, args...)
			peekHas(t, root, sh, "ready>", 1)
			testutil.MustRun(t, root, "send", sh, "echo remember-me\r")
			peekHas(t, root, sh, "remember-me", 2)

			r := testutil.MustRun(t, root, "kill", sh)
			if r.Stdout != "Session \""+sh+"\" killed.\n" {
				t.Errorf("kill: stdout %q stderr %q", r.Stdout, r.Stderr)
			}
			b, err := os.ReadFile(hist)
			if err != nil || !strings.Contains(string(b), "echo remember-me") {
				t.Errorf("history after kill: %q, %v; want the typed line", b, err)
			}
			m, err := layout.At(root).Metadata(sh)
			if err != nil || m.ExitCode == nil {
				t.Fatalf("record after kill: %+v, %v", m, err)
			}
			// bash dies of the SIGHUP it re-raises once its history is
			// saved; zsh exits with a status of its own. Either way it
			// ended on the hangup, not on the SIGKILL that follows a
			// SIGTERM a shell ignores.
			got, sig := listed(t, root, sh), 0
			if m.Signal != nil {
				sig = *m.Signal
			}
			if sh == "bash" {
				if got != "killed (SIGHUP)" || *m.ExitCode != 129 || sig != 1 {
					t.Errorf("bash after kill: list %q, exitCode %d signal %d; want killed (SIGHUP), 129, 1", got, *m.ExitCode, sig)
				}
			} else if !strings.HasPrefix(got, "exit ") || got == "exit 137" || sig != 0 {
				t.Errorf("zsh after kill: list %q, exitCode %d signal %d; want the exit status zsh chose", got, *m.ExitCode, sig)
			}
		})
	}
}

// A closing terminal hangs a program up once. A shell at its prompt is
// both the session's leader and the terminal's foreground process group,
// and a second SIGHUP while it was still saving its history on the first
// killed bash with the file empty or not written at all.
func TestKillHangsUpTheLeaderOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	got := filepath.Join(root, "hups")
	// The leader has a child in its process group, as a shell's command
	// without job control has: the foreground group, which the kernel
	// hangs up when the leader exits.
	prog := `$SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; $hup = 1 }; exec("sleep", "1000") if !fork; $| = 1; print "lead", "er-ready\n"; sleep 1 until $hup; select(undef, undef, undef, 0.3); exit 0`
	for i := 0; i < 5; i++ {
		id := "leader" + strconv.Itoa(i)
		testutil.MustRun(t, root, "run", "-d", "--id", id, "--", "perl", "-e", prog, got+strconv.Itoa(i))
		peekHas(t, root, id, "leader-ready", 1)
		testutil.MustRun(t, root, "kill", id)
		if b, _ := os.ReadFile(got + strconv.Itoa(i)); string(b) != "HUP\n" {
			t.Fatalf("kill %d: the session's leader, in the foreground group, saw %q, want one SIGHUP", i, b)
		}
	}
}

// A shell's foreground job is hung up once, by the shell, which passes
// its SIGHUP on to its jobs: one from the daemon as well came while the
// job was still saving on the first, and a program that then gives up (vim
// preserving its buffers stops on a second signal) lost what it was
// saving. The job here takes 300 ms to save, and logs every SIGHUP.
func TestKillHangsUpAShellsForegroundJobOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	got := filepath.Join(root, "fg")
	testutil.MustRun(t, root, "run", "-d", "--id", "vi", "--env", "PS1=ready> ", "--", "bash", "--norc", "-i")
	peekHas(t, root, "vi", "ready>", 1)
	job := `perl -MTime::HiRes=time,sleep -e '$SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; $end ||= time + 0.3 }; $| = 1; print "job-", "running\n"; sleep 0.01 until $end && time > $end; open(F, ">>", $ARGV[0]); print F "saved\n"; close F' ` + got + "\r"
	testutil.MustRun(t, root, "send", "vi", job)
	peekHas(t, root, "vi", "job-running", 1)
	testutil.MustRun(t, root, "kill", "vi")
	if b, _ := os.ReadFile(got); string(b) != "HUP\nsaved\n" {
		t.Errorf("the foreground job saw %q, want one SIGHUP and the time to save", b)
	}
	if l := listed(t, root, "vi"); l != "killed (SIGHUP)" {
		t.Errorf("list after kill: %q, want killed (SIGHUP)", l)
	}
}

// A program that ignores SIGTERM, as a shell does, and is still saving
// on its hangup when the SIGTERM would come, is not hung up again: here
// it runs under sh -c (as pty up runs commands), whose exit on the hangup
// makes the kernel hang the foreground group up, and it takes 1.5 s.
func TestKillLeavesASlowShellToItsHangup(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	got := filepath.Join(root, "hups")
	shell := `perl -MTime::HiRes=time,sleep -e '$SIG{TERM} = "IGNORE"; $SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; $end ||= time + 1.5 }; $| = 1; print "shell-", "ready\n"; sleep 0.01 until $end && time > $end; open(F, ">>", $ARGV[0]); print F "saved\n"; close F' ` + got
	testutil.MustRun(t, root, "run", "-d", "--id", "slow", "--", "sh", "-c", shell+"; :")
	peekHas(t, root, "slow", "shell-ready", 1)
	testutil.MustRun(t, root, "kill", "slow")
	if b, _ := os.ReadFile(got); string(b) != "HUP\nsaved\n" {
		t.Errorf("the slow shell saw %q, want one SIGHUP and the time to save", b)
	}
}

// The escalation's SIGTERM reaches each process once, also one whose
// parent the same SIGTERM ended: reparented to the daemon, it looked like
// a process not signalled yet, and a worker that drains on a first
// SIGTERM got a second while draining.
func TestKillTermsAnOrphanedWorkerOnce(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	got := filepath.Join(root, "terms")
	// sh ignores the hangup and dies of the SIGTERM; its worker ignores
	// the hangup and takes 500 ms to drain on the SIGTERM.
	worker := `perl -MTime::HiRes=time,sleep -e '$SIG{HUP} = "IGNORE"; $SIG{TERM} = sub { open(F, ">>", $ARGV[0]); print F "TERM\n"; close F; $end ||= time + 0.5 }; $| = 1; print "worker-", "ready\n"; sleep 0.01 until $end && time > $end; open(F, ">>", $ARGV[0]); print F "drained\n"; close F' ` + got
	testutil.MustRun(t, root, "run", "-d", "--id", "w", "--", "sh", "-c", "trap '' HUP; "+worker+" & wait")
	peekHas(t, root, "w", "worker-ready", 1)
	testutil.MustRun(t, root, "kill", "w")
	if b, _ := os.ReadFile(got); string(b) != "TERM\ndrained\n" {
		t.Errorf("the worker saw %q, want one SIGTERM and the time to drain", b)
	}
	if l := listed(t, root, "w"); l != "killed (SIGTERM)" {
		t.Errorf("list after kill: %q, want killed (SIGTERM)", l)
	}
}

// A program that ignores the hangup still ends: SIGHUP, then SIGTERM, then
// SIGKILL, in that order, and the list says it was killed by SIGKILL.
func TestKillEscalatesFromHangupToSIGKILL(t *testing.T) {
	root := testutil.Root(t)
	got := filepath.Join(root, "signals")
	script := `trap 'echo HUP >> ` + got + `' HUP; trap 'echo TERM >> ` + got + `' TERM; echo ready; while :; do sleep 0.05; done`
	testutil.MustRun(t, root, "run", "-d", "--id", "stubborn", "--", "sh", "-c", script)
	peekHas(t, root, "stubborn", "ready", 1)
	r := testutil.MustRun(t, root, "kill", "stubborn")
	if r.Stdout != "Session \"stubborn\" killed.\n" {
		t.Errorf("kill: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	// TERM goes to each process that appears meanwhile (a new sleep),
	// and to the shell only once: a second would cut short a program
	// that stops gently on the first.
	b, _ := os.ReadFile(got)
	if strings.Join(strings.Fields(string(b)), " ") != "HUP TERM" {
		t.Errorf("signals the program handled: %q, want HUP then TERM", b)
	}
	m, err := layout.At(root).Metadata("stubborn")
	if err != nil || m.ExitCode == nil || *m.ExitCode != 137 || m.Signal == nil || *m.Signal != 9 {
		t.Fatalf("record after kill: %+v, %v; want exitCode 137, signal 9", m, err)
	}
	if l := listed(t, root, "stubborn"); l != "killed (SIGKILL)" {
		t.Errorf("list after kill: %q, want killed (SIGKILL)", l)
	}
}

// pty kill of a session whose command has just exited, while its daemon
// still serves the final screen, ends that grace at once and returns only
// once the daemon is gone: the socket is gone when it returns and the
// record stays, with the exit and the last lines.
func TestKillDuringTheGraceAfterTheExit(t *testing.T) {
	root := testutil.Root(t)
	sock := layout.At(root).Paths("g").Sock()
	for attempt := 0; ; attempt++ {
		if attempt == 10 {
			t.Skip("the grace after the exit always ended before kill ran (a loaded machine)")
		}
		testutil.MustRun(t, root, "run", "-d", "--id", "g", "--", "sh", "-c", "echo persist me; exit 0")
		var m *layout.Metadata
		testutil.WaitFor(t, 10*time.Second, "the exit to be recorded", func() bool {
			var err error
			m, err = layout.At(root).Metadata("g")
			return err != nil || m.Exited()
		})
		if m == nil {
			continue // reaped already: the grace is over
		}
		r := testutil.Run(t, root, "kill", "g")
		_, sockErr := os.Lstat(sock)
		kept, err := layout.At(root).Metadata("g")
		if err != nil {
			continue // the grace ended on its own first, and the record was reaped
		}
		if !os.IsNotExist(sockErr) {
			t.Fatalf("kill returned with the socket still there (%v): %+v", sockErr, r)
		}
		if r.Code != 1 || !strings.Contains(r.Stderr, "is not running") {
			t.Errorf("kill of an ended session: %+v", r)
		}
		if kept.ExitCode == nil || *kept.ExitCode != 0 || !strings.Contains(strings.Join(kept.LastLines, "\n"), "persist me") {
			t.Errorf("record after kill: exitCode %v lastLines %q", kept.ExitCode, kept.LastLines)
		}
		if l := listed(t, root, "g"); l != "exit 0" {
			t.Errorf("list after kill: %q, want exit 0", l)
		}
		return
	}
}

// The hangup reaches the terminal's foreground job too, as a closing
// terminal's does, even when the shell that started it ignores SIGHUP.
func TestKillHangsUpTheForegroundJob(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		testutil.MissingTool(t, "perl (apt-get install perl)")
	}
	root := testutil.Root(t)
	got := filepath.Join(root, "fg")
	testutil.MustRun(t, root, "run", "-d", "--id", "job", "--env", "PS1=ready> ", "--", "bash", "--norc", "-i")
	peekHas(t, root, "job", "ready>", 1)
	job := `trap '' HUP; perl -e '$SIG{HUP} = sub { open(F, ">>", $ARGV[0]); print F "HUP\n"; close F; exit 0 }; $| = 1; print "job-", "running\n"; sleep 1 while 1' ` + got + "\r"
	testutil.MustRun(t, root, "send", "job", job)
	peekHas(t, root, "job", "job-running", 1)
	testutil.MustRun(t, root, "kill", "job")
	if b, _ := os.ReadFile(got); string(b) != "HUP\n" {
		t.Errorf("the foreground job saw %q, want a SIGHUP", b)
	}
	// The shell ignored both SIGHUP and SIGTERM.
	if l := listed(t, root, "job"); l != "killed (SIGKILL)" {
		t.Errorf("list after kill: %q, want killed (SIGKILL)", l)
	}
}
