// Command pty-list prints the session registry. It only reads: no cleanup,
// no lock files, not even the root is created, so it is safe to run from
// prompts, status bars and watch loops.
package main

import (
	"os"
	"time"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
	"golang.org/x/term"
)

func main() {
	c := cli.NewCommand("list", "pty list [--json] [--tags] [--filter-tag K=V]... [--status S] [--older-than D] [--newer-than D] [--summary]")
	c.Long = `Sessions are grouped as running, exited (with exit code and how long ago)
and vanished (the daemon died without recording an exit: killed or crashed).
Reserved tags (ptyfile*, strategy*, :*) are hidden unless --tags is given.

Filters compose: every --filter-tag must match, and --status, --older-than
and --newer-than narrow further. Ages count from exitedAt, else createdAt;
durations are a whole number and a unit: 30s, 15m, 2h, 7d.

--json prints an array of {name, status, pid, command, cwd, createdAt,
exitCode, exitedAt, tags?, displayName?, damaged?} sorted by display name
(or id).

A session whose record (ID.json) is damaged (truncated, not JSON,
unreadable) is still listed, running or vanished as its daemon says, marked
"[damaged record: ...]" (in JSON, "damaged" says why). It can only be
stopped with "pty kill ID" and removed with "pty rm ID".
--summary prints counts by status and the oldest and newest session.

Colour is used only when stdout is a terminal and NO_COLOR is not set.`
	asJSON := c.Flags.Bool("json", false, "print JSON for scripts")
	showTags := c.Flags.Bool("tags", false, "also show reserved tags (ptyfile*, strategy*, :*)")
	var tagFilters cli.StringList
	c.Flags.Var(&tagFilters, "filter-tag", "only sessions with tag `K=V` (repeatable; all must match)")
	status := c.Flags.String("status", "", "only sessions with this `status`: running, exited or vanished")
	c.Values("status", cli.ValueStatus)
	older := c.Flags.String("older-than", "", "only sessions older than `D` (like 30s, 15m, 2h, 7d)")
	newer := c.Flags.String("newer-than", "", "only sessions newer than `D`")
	summary := c.Flags.Bool("summary", false, "print counts by status and the oldest and newest session")
	if rest := c.Parse(os.Args[1:]); len(rest) > 0 {
		cli.Fatalf("list takes no arguments, got %q (filter with --filter-tag or --status; see 'pty list --help')", rest[0])
	}

	var f listing.Filter
	for _, kv := range tagFilters {
		k, v, err := cli.ParseKV("--filter-tag", kv)
		cli.Check(err)
		f.Tags = append(f.Tags, [2]string{k, v})
	}
	var err error
	if *status != "" {
		f.Status, err = listing.ParseStatus(*status)
		cli.Check(err)
	}
	if *older != "" {
		f.OlderThan, err = listing.ParseDuration(*older)
		cli.Check(err)
	}
	if *newer != "" {
		f.NewerThan, err = listing.ParseDuration(*newer)
		cli.Check(err)
	}

	root := cli.Root()
	all, err := layout.At(root).List()
	cli.Check(err)
	now := time.Now()
	ss := listing.Select(all, f, now)

	_, noColor := os.LookupEnv("NO_COLOR")
	style := listing.Style{
		Color:    !noColor && term.IsTerminal(int(os.Stdout.Fd())),
		ShowTags: *showTags,
		Home:     os.Getenv("HOME"),
		Now:      now,
	}
	switch {
	case *summary && *asJSON:
		err = listing.WriteSummaryJSON(os.Stdout, listing.Summarize(ss, now))
	case *summary:
		err = listing.WriteSummaryText(os.Stdout, listing.Summarize(ss, now), style)
	case *asJSON:
		err = listing.WriteJSON(os.Stdout, ss)
	default:
		empty := "No sessions."
		if len(all) > 0 {
			empty = "No sessions match."
		}
		err = listing.WriteText(os.Stdout, ss, style, empty)
	}
	cli.Check(err)
}
