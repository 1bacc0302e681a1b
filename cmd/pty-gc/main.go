// Command pty-gc is `pty gc`: one stateless reconciliation pass over the
// registry, and `pty gc install|uninstall|status` to run it on a timer.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/gcservice"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/reconcile"
)

const long = `One pass, everything derived from the files on disk, in this order:

  1. Debris: sockets, pid files, event logs, locks and temporary files that
     no live process owns and no valid metadata explains.
  2. Orphans: sessions tagged parent=ID whose parent is missing or not
     running are stopped (like pty kill) and removed. This beats permanent.
  3. Abandoned permanent sessions: removed, with a session_abandoned event,
     when their cwd no longer exists (opt out: strategy.abandon-if-cwd-gone=false)
     or when nobody attached for strategy.idle-days (or --idle-days) days.
  4. Permanent sessions (strategy=permanent) that exited or vanished are
     respawned with a session_respawn event (a pty.toml session re-reads its
     file), except that strategy.cleanup-on-clean-exit=true with exit 0
     removes them. Exiting within the fast-fail window of gc's last respawn,
     --fast-fail-limit times in a row, tags the session
     strategy.status=flapping and stops respawning it until the tag is
     removed, it is restarted, or its command changes. The tags
     strategy.fast-fail-window and strategy.fast-fail-limit beat the flags.
  5. Finished sessions that are not permanent are removed, except keep=true
     ones and strategy.cleanup-on-clean-exit=true ones that failed, which are
     kept until --keep-max-age has passed since their exit.
  6. Layout tags :l<pid>-<rand> whose pid is dead are pruned.

A vanished session (its daemon was SIGKILLed or crashed) may have left
processes running; before removing or respawning it, gc stops them (TERM,
then KILL): the user's processes whose environment carries its
PTY_SESSION, PTY_SESSION_GENERATION and PTY_ROOT and that are no older
than the session. A daemon pid is signalled only once it proves to be that
session's daemon (its arguments name the session, generation and root).

Each action prints one line, then a summary. Every action re-checks the
session under its locks first: one replaced or edited meanwhile is skipped.
A failed respawn is reported and retried next pass; gc exits 0 unless its
arguments are wrong.

Run it on a timer:
  pty gc install [--interval 30s] [--system] [--print]   systemd timer or launchd job
  pty gc uninstall [--system]
  pty gc status [--system]
The job runs pty-gc for this root (PTY_ROOT and PATH baked in) and logs to
<root>/gc.log, rotated at 1 MiB. Cron and runit: see docs/gc.md.`

func main() {
	args := os.Args[1:]
	if len(args) > 0 {
		switch args[0] {
		case "install", "uninstall", "status":
			serviceCmd(args[0], args[1:])
			return
		}
	}
	gc(args)
}

func gc(args []string) {
	c := cli.NewCommand("gc", "pty gc [-n|--dry-run] [--json] [--fast-fail-window SECS] [--fast-fail-limit N] [--idle-days N] [--keep-max-age D]",
		"reconcile the registry: respawn permanent sessions, reap dead ones")
	c.Long = long
	fs := c.Flags
	var dry, asJSON bool
	fs.BoolVar(&dry, "n", false, "dry run: print what would be done (\"Would ...\") and change nothing")
	fs.BoolVar(&dry, "dry-run", false, "same as -n")
	fs.BoolVar(&asJSON, "json", false, "print the actions and the summary as one JSON object")
	o := reconcile.DefaultOptions("")
	fs.Func("fast-fail-window", "an exit within `SECS` of gc's last respawn is a fast fail (default 60)", func(s string) error {
		n, err := positive(s)
		o.FastFailWindow = time.Duration(n) * time.Second
		return err
	})
	fs.Func("fast-fail-limit", "`N` fast fails in a row flag a session as flapping (default 3)", func(s string) error {
		n, err := positive(s)
		o.FastFailLimit = n
		return err
	})
	fs.Func("idle-days", "abandon permanent sessions nobody attached to for `N` days (default off)", func(s string) error {
		n, err := positive(s)
		o.IdleDays = n
		return err
	})
	fs.Func("keep-max-age", "sessions kept for inspection go `D` after their exit: 7d, 12h, 30m, 0 = at once (default 7d)", func(s string) error {
		d, err := reconcile.ParseDuration(s)
		o.KeepMaxAge = d
		return err
	})
	var logFile string
	fs.StringVar(&logFile, "log", "", "append output to `FILE` with timestamps, rotating it to FILE.1 past 1 MiB (the timer uses this)")
	c.Values("log", cli.ValueFile)
	var printPlist bool
	fs.BoolVar(&printPlist, "print-launchd-plist", false, "print a launchd plist for this root and exit (same as: pty gc install --print --platform launchd)")
	var interval string
	fs.StringVar(&interval, "interval", "30s", "with --print-launchd-plist: how often to run, like 30s or 5m")
	if pos := c.Parse(args); len(pos) > 0 {
		cli.Fatalf("unexpected argument %q: pty gc takes only flags, or one of install, uninstall, status (see 'pty gc --help')", pos[0])
	}
	root := cli.Root()
	if printPlist {
		cfg := serviceConfig(root, interval, false)
		files, err := gcservice.Render(cfg, gcservice.Launchd)
		cli.Check(err)
		fmt.Print(files[0].Content)
		return
	}
	o.Root = root
	o.DryRun = dry
	if _, err := os.Stat(root); err == nil {
		// gc starts processes from what it reads here: a root others can
		// write could make it run anything.
		cli.Check(layout.CheckRootPerms(root))
	}

	var out io.Writer = os.Stdout
	stamp := false
	if logFile != "" {
		if _, err := os.Stat(root); err != nil {
			// Never create the root from a timer: at boot it may sit on a
			// filesystem that is not mounted yet, and a directory made
			// now would hide the real one.
			fmt.Fprintf(os.Stderr, "pty gc: %s is not there (yet): nothing to do\n", root)
			return
		}
		f, err := openLog(logFile)
		cli.Check(err)
		defer f.Close()
		out, stamp = f, true
	}
	line := func(s string) {
		if stamp {
			s = layout.Now() + " " + s
		}
		fmt.Fprintln(out, s)
	}
	if !asJSON {
		o.Report = func(a reconcile.Action) { line(a.Message) }
	}
	ctx, cancel := cli.Context()
	defer cancel()
	res, err := reconcile.Run(ctx, o)
	if err != nil {
		// The registry could not be read at all: say so, but a timer
		// should not mark itself failed forever over a transient error.
		line("pty gc: " + err.Error())
		if logFile == "" {
			os.Exit(1)
		}
		return
	}
	if asJSON {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(out, string(b))
		return
	}
	line(res.Summary.Text)
}

func positive(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive whole number", s)
	}
	return n, nil
}

// maxLog is where gc.log is rotated: a 30 s timer writes a line or two
// per pass, so this holds days of history and can never fill a disk.
const maxLog = 1 << 20

// openLog appends to path, first renaming it to path.1 (replacing the
// previous one) once it passes maxLog.
func openLog(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		// Two passes may race here; the loser's rename finds the file
		// already moved, or moves a fresh one: a little history lost,
		// never an unbounded file.
		os.Rename(path, path+".1")
	}
	// Not through a symbolic link: the timer may run as root for a
	// root others can name files in.
	f, err := layout.OpenNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	return f, nil
}

func serviceConfig(root, interval string, system bool) gcservice.Config {
	d, err := parseInterval(interval)
	cli.Check(err)
	exe, err := os.Executable()
	cli.Check(err)
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return gcservice.Config{Root: root, Exec: exe, Path: os.Getenv("PATH"), Interval: d, System: system}
}

func parseInterval(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		s = strconv.Itoa(n) + "s"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("--interval %q is not valid: give whole seconds, at least 1, like 30s, 5m or 90", s)
	}
	return d, nil
}

func serviceCmd(sub string, args []string) {
	usage := map[string]string{
		"install":   "pty gc install [--interval 30s] [--system] [--print] [--platform systemd|launchd]",
		"uninstall": "pty gc uninstall [--system]",
		"status":    "pty gc status [--system]",
	}[sub]
	summary := map[string]string{
		"install":   "run pty gc for this root on a timer (systemd user timer, or launchd agent)",
		"uninstall": "remove the timer that runs pty gc for this root",
		"status":    "show whether pty gc runs on a timer for this root, and its last log lines",
	}[sub]
	c := cli.NewCommand("gc "+sub, usage, summary)
	c.Long = `The job is named after the root (pty gc status shows the name), so each root
can have its own. It runs pty-gc with PTY_ROOT and PATH as they are now, and
logs to <root>/gc.log (rotated at 1 MiB). Without --system it is a per-user
systemd timer (~/.config/systemd/user) or launchd agent (~/Library/LaunchAgents);
with --system a system unit or LaunchDaemon that still runs as you.`
	fs := c.Flags
	interval, system, print, platform := "30s", false, false, ""
	fs.BoolVar(&system, "system", false, "a system-wide unit (needs root) instead of a per-user one")
	if sub == "install" {
		fs.StringVar(&interval, "interval", "30s", "how often gc runs: 30s, 5m, or seconds")
		fs.BoolVar(&print, "print", false, "print the files that would be installed, and install nothing")
		fs.StringVar(&platform, "platform", "", "with --print: render for systemd or launchd (default: this OS's)")
	}
	if pos := c.Parse(args); len(pos) > 0 {
		cli.Fatalf("unexpected argument %q (see 'pty gc %s --help')", pos[0], sub)
	}
	if platform != "" && !print {
		cli.Fatalf("--platform works only with --print: install always uses this machine's service manager")
	}
	root := cli.Root()
	cfg := serviceConfig(root, interval, system)
	switch sub {
	case "install":
		if print {
			if platform == "" {
				platform = gcservice.NativePlatform()
			}
			files, err := gcservice.Render(cfg, platform)
			cli.Check(err)
			for i, f := range files {
				if i > 0 {
					fmt.Println()
				}
				fmt.Printf("# %s\n%s", f.Path, f.Content)
			}
			return
		}
		cli.Check(layout.EnsureRoot(root))
		files, err := gcservice.Install(cfg)
		cli.Check(err)
		for _, f := range files {
			fmt.Printf("Installed %s\n", f.Path)
		}
		fmt.Printf("pty gc now runs every %s for %s; it logs to %s.\n", reconcile.FormatDuration(cfg.Interval), root, filepath.Join(root, gcservice.LogName))
	case "uninstall":
		st, err := gcservice.Status(cfg)
		cli.Check(err)
		if !st.Installed {
			fmt.Printf("No pty gc timer is installed for %s.\n", root)
			return
		}
		cli.Check(gcservice.Uninstall(cfg))
		fmt.Printf("Removed the pty gc timer for %s.\n", root)
	case "status":
		st, err := gcservice.Status(cfg)
		cli.Check(err)
		if !st.Installed {
			fmt.Printf("No pty gc timer is installed for %s (pty gc install adds one).\n", root)
			return
		}
		fmt.Printf("pty gc timer for %s: installed (%s), %s\n", root, st.Platform, st.Active)
		for _, f := range st.Files {
			fmt.Printf("  %s\n", f.Path)
		}
		if tail := lastLines(filepath.Join(root, gcservice.LogName), 5); tail != "" {
			fmt.Printf("Last log lines (%s):\n%s", filepath.Join(root, gcservice.LogName), tail)
		}
	}
}

// lastLines returns the end of a log, for status.
func lastLines(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const chunk = 8 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > chunk {
		f.Seek(-chunk, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString("  " + l + "\n")
	}
	return sb.String()
}
