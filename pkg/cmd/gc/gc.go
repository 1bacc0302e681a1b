// Package gc is `pty gc`: one reconciliation pass (pkg/reconcile) with its
// output to the terminal or to a rotated log, and `pty gc
// install|uninstall|status` for the timer that runs it (pkg/gcservice).
// cmd/pty-gc only parses the command line and calls Run or Service, which
// do the work against the streams, root and clock they are given.
package gc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/gcservice"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/reconcile"
)

// Options are pty gc's flags. Pass starts as reconcile.DefaultOptions("");
// the flags fill its knobs, Run its root and reporting.
type Options struct {
	Pass   reconcile.Options
	Args   []string // none are allowed
	DryRun bool
	JSON   bool
	// Log appends the output, timestamped, to this file, rotating it
	// past MaxLog (the timer uses it).
	Log string
	// PrintPlist prints a launchd plist for this root at Interval.
	PrintPlist bool
	Interval   string
}

const long = `One pass, everything derived from the files on disk, in this order:

  1. Debris: sockets, pid files, event and error logs, locks and temporary
     files that no live process owns and no valid metadata explains, and
     pty.toml identity locks whose holder died.
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
     kept until --keep-max-age has passed since their exit, and other
     failures (a non-zero exit or a signal nobody asked for; not pty kill),
     kept until --failed-ttl has passed since their exit.
  6. Layout tags :l<pid>-<rand> whose pid is dead are pruned.

A session whose exit is recorded is exited even while its daemon still
answers for its grace period: it is respawned or removed, not left for the
next pass.

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

Durations (--fast-fail-window, --keep-max-age, --failed-ttl, --interval and
the strategy.fast-fail-window tag) are seconds (90, 0.5) or a number and one
unit: 500ms, 30s, 15m, 2h, 7d, as every pty duration is.

Run it on a timer:
  pty gc install [--interval 30s] [--system] [--print]   systemd timer or launchd job
  pty gc uninstall [--system]
  pty gc status [--system]
  pty gc --print-launchd-plist [--interval 30s]          print the launchd job only
    (same as: pty gc install --print --platform launchd)
The job runs pty-gc for this root (PTY_ROOT and PATH baked in) and logs to
<root>/gc.log, rotated at 1 MiB. Cron and runit: see docs/gc.md.`

// Command declares gc's flags, filling o (its Pass starts as
// reconcile.DefaultOptions).
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("gc", "pty gc [-n|--dry-run] [--json] [--fast-fail-window D] [--fast-fail-limit N] [--idle-days N] [--keep-max-age D] [--failed-ttl D]",
		"reconcile the registry: respawn permanent sessions, reap dead ones")
	c.Long = long
	o.Pass = reconcile.DefaultOptions("")
	fs := c.Flags
	fs.BoolVar(&o.DryRun, "dry-run", false, "dry run: print what would be done (\"Would ...\") and change nothing")
	c.Alias("n", "dry-run")
	fs.BoolVar(&o.JSON, "json", false, "print the actions and the summary as one JSON object")
	fs.Func("fast-fail-window", "an exit within `D` of gc's last respawn is a fast fail: 60, 90s, 5m (default 60s)", func(s string) (err error) {
		o.Pass.FastFailWindow, err = positiveDuration(s)
		return err
	})
	fs.Func("fast-fail-limit", "`N` fast fails in a row flag a session as flapping (default 3)", func(s string) (err error) {
		o.Pass.FastFailLimit, err = Positive(s)
		return err
	})
	fs.Func("idle-days", "abandon permanent sessions nobody attached to for `N` whole days, 7 or 7d (default off)", func(s string) (err error) {
		o.Pass.IdleDays, err = IdleDays(s)
		return err
	})
	fs.Func("keep-max-age", "sessions kept for inspection go `D` after their exit: 7d, 12h, 30m, 0 = at once (default 7d)", func(s string) (err error) {
		o.Pass.KeepMaxAge, err = duration.Parse(s)
		return err
	})
	fs.Func("failed-ttl", "a failed session (non-zero exit, or a signal it did not ask for) goes `D` after its exit: 1d, 12h, 30s, 0 = at once (default 1d)", func(s string) (err error) {
		o.Pass.FailedTTL, err = duration.Parse(s)
		return err
	})
	fs.StringVar(&o.Log, "log", "", "append output to `FILE` with timestamps, rotating it to FILE.1 past 1 MiB (the timer uses this)")
	c.Values("log", cli.ValueFile)
	// Both are the original's way to print a plist; the Long text shows
	// them with it, as the flag list would show --interval as a pass's.
	fs.BoolVar(&o.PrintPlist, "print-launchd-plist", false, "print a launchd plist for this root and exit")
	fs.StringVar(&o.Interval, "interval", "", "with --print-launchd-plist: how often to run (default 30s)")
	c.Hide("print-launchd-plist")
	c.Hide("interval")
	return c
}

// ServiceCommand declares the flags of "pty gc " + o.Sub (install,
// uninstall or status), filling o.
func ServiceCommand(o *ServiceOptions) *cli.Command {
	usage := map[string]string{
		"install":   "pty gc install [--interval 30s] [--failed-ttl D] [--system] [--print] [--platform systemd|launchd]",
		"uninstall": "pty gc uninstall [--system]",
		"status":    "pty gc status [--system]",
	}[o.Sub]
	summary := map[string]string{
		"install":   "run pty gc for this root on a timer (systemd user timer, or launchd agent)",
		"uninstall": "remove the timer that runs pty gc for this root",
		"status":    "show whether pty gc runs on a timer for this root, and its last log lines",
	}[o.Sub]
	c := cli.NewCommand("gc "+o.Sub, usage, summary)
	c.Long = `The job is named after the root (pty gc status shows the name), so each root
can have its own. It runs pty-gc with PTY_ROOT and PATH as they are now, and
logs to <root>/gc.log (rotated at 1 MiB). Without --system it is a per-user
systemd timer (~/.config/systemd/user) or launchd agent (~/Library/LaunchAgents);
with --system a system unit or LaunchDaemon that still runs as you. On macOS,
install replaces the original pty's launchd job for the same root
(com.compoundingtech.pty.gc[.NAME].plist, or com.myobie.pty.gc…), so gc does
not run twice; uninstall removes it too.`
	o.Interval = "30s"
	fs := c.Flags
	fs.BoolVar(&o.System, "system", false, "a system-wide unit (needs root) instead of a per-user one")
	if o.Sub == "install" {
		fs.StringVar(&o.Interval, "interval", "30s", "how often gc runs: 30s, 5m, or seconds")
		fs.StringVar(&o.FailedTTL, "failed-ttl", "", "each pass keeps failed sessions for `D` after their exit (pty gc --failed-ttl; default gc's, 1d)")
		fs.BoolVar(&o.Print, "print", false, "print the files that would be installed, and install nothing")
		fs.StringVar(&o.Platform, "platform", "", "with --print: render for systemd or launchd (default: this OS's)")
	}
	return c
}

// Run is one gc pass. It fails only on bad arguments, or when the registry
// cannot be read at all and no log is kept: a timer should not mark itself
// failed forever over a transient error.
func Run(ctx context.Context, o Options, io cli.IO) error {
	if len(o.Args) > 0 {
		return fmt.Errorf("unexpected argument %q: pty gc takes only flags, or one of install, uninstall, status (see 'pty gc --help')", o.Args[0])
	}
	root := io.Root
	if o.Interval != "" && !o.PrintPlist {
		return fmt.Errorf("--interval %s applies to the timer, not to a pass: use pty gc install --interval %s (or pty gc --print-launchd-plist --interval %s)", o.Interval, o.Interval, o.Interval)
	}
	if o.PrintPlist {
		interval := o.Interval
		if interval == "" {
			interval = "30s"
		}
		cfg, err := serviceConfig(root, interval, false, "")
		if err != nil {
			return err
		}
		files, err := gcservice.Render(cfg, gcservice.Launchd)
		if err != nil {
			return err
		}
		fmt.Fprint(io.Out, files[0].Content)
		return nil
	}
	p := o.Pass
	p.Root = root
	p.DryRun = o.DryRun
	if _, err := os.Stat(root); err == nil {
		// gc starts processes from what it reads here: a root others can
		// write could make it run anything.
		if err := rootdir.CheckPerms(root); err != nil {
			return err
		}
	}
	out := io.Out
	stamp := false
	if o.Log != "" {
		if _, err := os.Stat(root); err != nil {
			// Never create the root from a timer: at boot it may sit on a
			// filesystem that is not mounted yet, and a directory made
			// now would hide the real one.
			fmt.Fprintf(io.Err, "pty gc: %s is not there (yet): nothing to do\n", root)
			return nil
		}
		f, err := OpenLog(o.Log)
		if err != nil {
			return err
		}
		defer f.Close()
		out, stamp = f, true
	}
	line := func(s string) {
		if stamp {
			s = layout.FormatTime(io.Now()) + " " + s
		}
		fmt.Fprintln(out, s)
	}
	if !o.JSON {
		p.Report = func(a reconcile.Action) { line(a.Message) }
	}
	res, err := reconcile.Run(ctx, p)
	if err != nil {
		line("pty gc: " + err.Error())
		if o.Log == "" {
			return cli.ExitCode(1)
		}
		return nil
	}
	if o.JSON {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(out, string(b))
		return nil
	}
	line(res.Summary.Text)
	return nil
}

// Positive parses a flag's positive whole number.
func Positive(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive whole number", s)
	}
	return n, nil
}

// IdleDays reads --idle-days: a whole number of days, 1 or more, with or
// without a d. Not a duration: idle time is counted in whole days, as
// the strategy.idle-days tag (which wins over the flag) counts it, and the
// original pty, which shares that tag and reads it as a whole number,
// would take "12h" for 12 days; session_abandoned's idleDays is whole days
// too.
func IdleDays(s string) (int, error) {
	t := strings.TrimSpace(s)
	if d, ok := strings.CutSuffix(t, "d"); ok {
		t = d
	} else if d, ok := strings.CutSuffix(t, "D"); ok {
		t = d
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 || n > 36500 {
		return 0, errors.New("idle time is counted in whole days (as the strategy.idle-days tag and the original pty count it): give a number of days from 1 to 36500, as 7 or 7d")
	}
	return n, nil
}

// MaxLog is where gc.log is rotated: a 30 s timer writes a line or two per
// pass, so this holds days of history and can never fill a disk.
const MaxLog = 1 << 20

// OpenLog appends to path, first renaming it to path.1 (replacing the
// previous one) once it passes MaxLog.
func OpenLog(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxLog {
		// Two passes may race here; the loser's rename finds the file
		// already moved, or moves a fresh one: a little history lost,
		// never an unbounded file.
		os.Rename(path, path+".1")
	}
	// Not through a symbolic link: the timer may run as root for a root
	// others can name files in.
	f, err := fsx.OpenNoFollow(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	return f, nil
}

// serviceConfig is the timer's configuration for root. Whether a service
// file can hold it is gcservice.Config.Validate's to say, the one place
// that knows; Render and Install call it.
func serviceConfig(root, interval string, system bool, failedTTL string) (gcservice.Config, error) {
	cfg := gcservice.Config{Root: root, Path: os.Getenv("PATH"), System: system}
	if failedTTL != "" {
		d, err := duration.Parse(failedTTL)
		if err != nil {
			return cfg, fmt.Errorf("--failed-ttl %q is not valid: %w", failedTTL, err)
		}
		cfg.FailedTTL = duration.Format(d)
	}
	d, err := parseInterval(interval)
	if err != nil {
		return cfg, err
	}
	cfg.Interval = d
	exe, err := os.Executable()
	if err != nil {
		return cfg, err
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	cfg.Exec = exe
	return cfg, nil
}

// parseInterval reads --interval. Timers count whole seconds.
func parseInterval(s string) (time.Duration, error) {
	d, err := duration.Parse(s)
	if err != nil {
		return 0, fmt.Errorf("--interval %q is not valid: %v", s, err)
	}
	if d < time.Second || d%time.Second != 0 {
		return 0, fmt.Errorf("--interval %q is not valid: timers count whole seconds; give at least 1, like 30s, 5m or 90", s)
	}
	return d, nil
}

// positiveDuration reads a duration flag that must be more than zero.
func positiveDuration(s string) (time.Duration, error) {
	d, err := duration.Parse(s)
	if err == nil && d <= 0 {
		err = errors.New("give more than 0")
	}
	return d, err
}

// ServiceOptions are the flags of pty gc install, uninstall and status.
type ServiceOptions struct {
	Sub      string // install, uninstall or status
	Args     []string
	Interval string
	System   bool
	Print    bool
	Platform string
	// FailedTTL (install) is the --failed-ttl each timed pass gets; ""
	// leaves gc's default.
	FailedTTL string
}

// Service installs, removes or reports the timer that runs pty gc for
// io.Root.
func Service(o ServiceOptions, io cli.IO) error {
	if len(o.Args) > 0 {
		return fmt.Errorf("unexpected argument %q (see 'pty gc %s --help')", o.Args[0], o.Sub)
	}
	if o.Platform != "" && !o.Print {
		return errors.New("--platform works only with --print: install always uses this machine's service manager")
	}
	root := io.Root
	cfg, err := serviceConfig(root, o.Interval, o.System, o.FailedTTL)
	if err != nil {
		return err
	}
	logPath := filepath.Join(root, gcservice.LogName)
	switch o.Sub {
	case "install":
		if o.Print {
			platform := o.Platform
			if platform == "" {
				platform = gcservice.NativePlatform()
			}
			files, err := gcservice.Render(cfg, platform)
			if err != nil {
				return err
			}
			for i, f := range files {
				if i > 0 {
					fmt.Fprintln(io.Out)
				}
				fmt.Fprintf(io.Out, "# %s\n%s", f.Path, f.Content)
			}
			return nil
		}
		// Before the root is made: bad arguments leave nothing behind.
		if err := cfg.Validate(); err != nil {
			return err
		}
		if err := layout.EnsureRoot(root); err != nil {
			return err
		}
		st, err := gcservice.Status(cfg)
		if err != nil {
			return err
		}
		files, err := gcservice.Install(cfg)
		if err != nil {
			return err
		}
		for _, p := range st.Legacy {
			fmt.Fprintf(io.Out, "Replaced the original pty's gc job %s\n", p)
		}
		for _, f := range files {
			fmt.Fprintf(io.Out, "Installed %s\n", f.Path)
		}
		fmt.Fprintf(io.Out, "pty gc now runs every %s for %s; it logs to %s.\n", duration.Format(cfg.Interval), root, logPath)
	case "uninstall":
		st, err := gcservice.Status(cfg)
		if err != nil {
			return err
		}
		if !st.Installed && len(st.Legacy) == 0 {
			fmt.Fprintf(io.Out, "No pty gc timer is installed for %s.\n", root)
			return nil
		}
		if err := gcservice.Uninstall(cfg); err != nil {
			return err
		}
		for _, p := range st.Legacy {
			fmt.Fprintf(io.Out, "Removed the original pty's gc job %s\n", p)
		}
		if st.Installed {
			fmt.Fprintf(io.Out, "Removed the pty gc timer for %s.\n", root)
		}
	case "status":
		st, err := gcservice.Status(cfg)
		if err != nil {
			return err
		}
		for _, p := range st.Legacy {
			fmt.Fprintf(io.Out, "The original pty's gc job %s also runs gc for %s: pty gc install replaces it, pty gc uninstall removes it.\n", p, root)
		}
		if !st.Installed {
			fmt.Fprintf(io.Out, "No pty gc timer is installed for %s (pty gc install adds one).\n", root)
			return nil
		}
		fmt.Fprintf(io.Out, "pty gc timer for %s: installed (%s), %s\n", root, st.Platform, st.Active)
		for _, f := range st.Files {
			fmt.Fprintf(io.Out, "  %s\n", f.Path)
		}
		if tail := LastLines(logPath, 5); tail != "" {
			fmt.Fprintf(io.Out, "Last log lines (%s):\n%s", logPath, tail)
		}
	}
	return nil
}

// LastLines returns the last n lines of a log, indented, for status.
func LastLines(path string, n int) string {
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
