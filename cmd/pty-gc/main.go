// Command pty-gc is `pty gc`: one stateless reconciliation pass over the
// registry, and `pty gc install|uninstall|status` to run it on a timer.
// The work is in pkg/cmd/gc.
package main

import (
	"os"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/gc"
	"github.com/ptyorg/pty/pkg/reconcile"
)

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
			service(args[0], args[1:])
			return
		}
	}
	c := cli.NewCommand("gc", "pty gc [-n|--dry-run] [--json] [--fast-fail-window SECS] [--fast-fail-limit N] [--idle-days N] [--keep-max-age D] [--failed-ttl D]",
		"reconcile the registry: respawn permanent sessions, reap dead ones")
	c.Long = long
	o := gc.Options{Pass: reconcile.DefaultOptions("")}
	fs := c.Flags
	fs.BoolVar(&o.DryRun, "dry-run", false, "dry run: print what would be done (\"Would ...\") and change nothing")
	c.Alias("n", "dry-run")
	fs.BoolVar(&o.JSON, "json", false, "print the actions and the summary as one JSON object")
	fs.Func("fast-fail-window", "an exit within `SECS` of gc's last respawn is a fast fail (default 60)", func(s string) error {
		n, err := gc.Positive(s)
		o.Pass.FastFailWindow = time.Duration(n) * time.Second
		return err
	})
	fs.Func("fast-fail-limit", "`N` fast fails in a row flag a session as flapping (default 3)", func(s string) (err error) {
		o.Pass.FastFailLimit, err = gc.Positive(s)
		return err
	})
	fs.Func("idle-days", "abandon permanent sessions nobody attached to for `N` days (default off)", func(s string) (err error) {
		o.Pass.IdleDays, err = gc.Positive(s)
		return err
	})
	fs.Func("keep-max-age", "sessions kept for inspection go `D` after their exit: 7d, 12h, 30m, 0 = at once (default 7d)", func(s string) (err error) {
		o.Pass.KeepMaxAge, err = reconcile.ParseDuration(s)
		return err
	})
	fs.Func("failed-ttl", "a failed session (non-zero exit, or a signal it did not ask for) goes `D` after its exit: 1d, 12h, 30s, 0 = at once (default 1d)", func(s string) (err error) {
		o.Pass.FailedTTL, err = reconcile.ParseDuration(s)
		return err
	})
	fs.StringVar(&o.Log, "log", "", "append output to `FILE` with timestamps, rotating it to FILE.1 past 1 MiB (the timer uses this)")
	c.Values("log", cli.ValueFile)
	fs.BoolVar(&o.PrintPlist, "print-launchd-plist", false, "print a launchd plist for this root and exit (same as: pty gc install --print --platform launchd)")
	fs.StringVar(&o.Interval, "interval", "30s", "with --print-launchd-plist: how often to run, like 30s or 5m")
	o.Args = c.Parse(args)
	ctx, cancel := cli.Context()
	err := gc.Run(ctx, o, cli.System(cli.Root()))
	cancel()
	cli.Exit(err)
}

func service(sub string, args []string) {
	usage := map[string]string{
		"install":   "pty gc install [--interval 30s] [--failed-ttl D] [--system] [--print] [--platform systemd|launchd]",
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
	o := gc.ServiceOptions{Sub: sub, Interval: "30s"}
	fs := c.Flags
	fs.BoolVar(&o.System, "system", false, "a system-wide unit (needs root) instead of a per-user one")
	if sub == "install" {
		fs.StringVar(&o.Interval, "interval", "30s", "how often gc runs: 30s, 5m, or seconds")
		fs.StringVar(&o.FailedTTL, "failed-ttl", "", "each pass keeps failed sessions for `D` after their exit (pty gc --failed-ttl; default gc's, 1d)")
		fs.BoolVar(&o.Print, "print", false, "print the files that would be installed, and install nothing")
		fs.StringVar(&o.Platform, "platform", "", "with --print: render for systemd or launchd (default: this OS's)")
	}
	o.Args = c.Parse(args)
	cli.Exit(gc.Service(o, cli.System(cli.Root())))
}
