// Command pty-tag-multi shows or changes the tags of several sessions.
// The work is in pkg/cmd/tagmulti.
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/tagmulti"
)

func main() {
	c := cli.NewCommand("tag-multi",
		"pty tag-multi (REF... | --filter-tag K=V... | --all) [KEY=VALUE...] [--rm KEY...] [--json] [-y]",
		"Show or change the tags of several sessions.")
	c.Long = `Choose the sessions with exactly one selector:
  REF...             sessions by id or display name; every one must resolve
                     before anything is written
  --filter-tag K=V   sessions having all these tags (repeatable)
  --all              every session (writing needs --yes)

Arguments with "=" are tags to set (KEY=VALUE, the value is everything after
the first "="); --rm KEY removes a tag. Sets apply before removals. Without
any, the sessions' tags are printed (--json: {"id": {"key": "value"}}).
Limits, as for "pty tag": keys 256 bytes, values 4096, at most 256 tags and
64 KiB in all per session.

Each session is changed atomically with its own tags_change event. A session
that fails is reported and the rest are still changed; the exit status is
then 1. With --filter-tag, a session whose tags stopped matching between
selection and change is skipped. A display name containing "=" must be
given by its id.

Examples:
  pty tag-multi web api --rm draining
  pty tag-multi --filter-tag role=web env=prod
  pty tag-multi --all --json
  pty tag-multi --all --yes --rm stale`
	var o tagmulti.Options
	fs := c.Flags
	fs.Var((*cli.StringList)(&o.Rm), "rm", "remove tag `KEY` (repeatable; applied after the sets)")
	fs.Var((*cli.StringList)(&o.Filters), "filter-tag", "select sessions with tag `K=V` (repeatable; all must match)")
	fs.BoolVar(&o.All, "all", false, "select every session")
	fs.BoolVar(&o.JSON, "json", false, "when reading, print {\"id\": {tags}} as JSON")
	fs.BoolVar(&o.Yes, "yes", false, "confirm a write to --all sessions")
	c.Alias("y", "yes")
	o.Args = c.Parse(os.Args[1:])
	cli.Exit(tagmulti.Run(o, cli.System(cli.Root())))
}
