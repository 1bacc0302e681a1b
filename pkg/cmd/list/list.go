// Package list is "pty list": print the session registry. It only reads:
// no cleanup, no lock files, not even the root is created, so it is safe
// to run from prompts, status bars and watch loops. cmd/pty-list prints
// the plain command lines itself (package show); cmd/pty-list-full parses
// every other one and calls Run, which prints with show.Print.
package list

import (
	"fmt"
	"io"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/list/show"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Options are list's flags and arguments.
type Options struct {
	JSON       bool     // --json
	Tags       bool     // --tags: reserved tags too
	FilterTags []string // --filter-tag K=V, repeatable
	Status     string   // --status S
	OlderThan  string   // --older-than D
	NewerThan  string   // --newer-than D
	Summary    bool     // --summary
	Args       []string // none are taken
}

// Command declares list's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("list", "pty list [--json] [--tags] [--filter-tag K=V]... [--status S] [--older-than D] [--newer-than D] [--summary]")
	c.Long = `Sessions are grouped as running, exited (with exit code and how long ago)
and vanished (the daemon died without recording an exit: killed or crashed).
Reserved tags (ptyfile*, strategy*, :*) are hidden unless --tags is given.

Filters compose: every --filter-tag must match, and --status, --older-than
and --newer-than narrow further. Ages count from exitedAt, else createdAt;
durations are a whole number and a unit: 30s, 15m, 2h, 7d.

--json prints an array of {name, status, pid, command, cwd, createdAt,
exitCode, exitedAt, tags?, displayName?, activity?, damaged?} sorted by
display name (or id).

A session that rang the bell or sent a desktop notification while nobody
was attached is marked "[bell]" or "[notified]" (in JSON, "activity":
["bell", "notified"]) until someone attaches to it (pty attach, attach -R,
peek -f, or its pty web page).

A session whose record (ID.json) is damaged (truncated, not JSON,
unreadable) is still listed, running or vanished as its daemon says, marked
"[damaged record: ...]" (in JSON, "damaged" says why). It can only be
stopped with "pty kill ID" and removed with "pty rm ID".
--summary prints counts by status and the oldest and newest session.

Colour is used only when stdout is a terminal and NO_COLOR is not set.

pty list --remote HOST lists HOST's sessions (over ssh, see 'pty remote
--help'); --remote without a host, or --all-hosts, lists this host's and
then every remotes.toml host's, grouped by host, in JSON as
{"local": [...], "remote": [{"label", "sessions", "error"}]}. With --json,
--remote HOST prints that shape too, for this host and HOST (see
docs/remote.md).`
	fs := c.Flags
	fs.BoolVar(&o.JSON, "json", false, "print JSON for scripts")
	fs.BoolVar(&o.Tags, "tags", false, "also show reserved tags (ptyfile*, strategy*, :*)")
	fs.Var((*cli.StringList)(&o.FilterTags), "filter-tag", "only sessions with tag `K=V` (repeatable; all must match)")
	fs.StringVar(&o.Status, "status", "", "only sessions with this `status`: running, exited or vanished")
	c.Values("status", cli.ValueStatus)
	fs.StringVar(&o.OlderThan, "older-than", "", "only sessions older than `D` (like 30s, 15m, 2h, 7d; a bare number is seconds)")
	fs.StringVar(&o.NewerThan, "newer-than", "", "only sessions newer than `D`")
	fs.BoolVar(&o.Summary, "summary", false, "print counts by status and the oldest and newest session")
	return c
}

// Run prints the sessions o selects. Colour is used only when io.Out is a
// terminal and NO_COLOR is not set in io.Env.
func Run(o Options, io cli.IO) error {
	if len(o.Args) > 0 {
		return fmt.Errorf("list takes no arguments, got %q (filter with --filter-tag or --status; see 'pty list --help')", o.Args[0])
	}
	var f listing.Filter
	for _, kv := range o.FilterTags {
		k, v, err := cli.ParseKV("--filter-tag", kv)
		if err != nil {
			return err
		}
		f.Tags = append(f.Tags, [2]string{k, v})
	}
	var err error
	if o.Status != "" {
		if f.Status, err = listing.ParseStatus(o.Status); err != nil {
			return err
		}
	}
	if o.OlderThan != "" {
		if f.OlderThan, err = duration.Parse(o.OlderThan); err != nil {
			return fmt.Errorf("--older-than %q is not valid: %v", o.OlderThan, err)
		}
	}
	if o.NewerThan != "" {
		if f.NewerThan, err = duration.Parse(o.NewerThan); err != nil {
			return fmt.Errorf("--newer-than %q is not valid: %v", o.NewerThan, err)
		}
	}

	return show.Print(io, show.Options{JSON: o.JSON, Tags: o.Tags, Filter: f, Summary: summary(o.Summary)})
}

// summary is --summary's printer, or nil without it.
func summary(on bool) func(io.Writer, []layout.Session, listing.Style, bool) error {
	if !on {
		return nil
	}
	return func(w io.Writer, ss []layout.Session, st listing.Style, json bool) error {
		if json {
			return listing.WriteSummaryJSON(w, listing.Summarize(ss, st.Now))
		}
		return listing.WriteSummaryText(w, listing.Summarize(ss, st.Now), st)
	}
}
