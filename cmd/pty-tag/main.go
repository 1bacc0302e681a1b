// Command pty-tag shows or changes one session's tags.
package main

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

func main() {
	c := cli.NewCommand("tag", "pty tag REF [KEY=VALUE...] [--rm KEY...]")
	c.Long = `With only REF, lists the session's tags as "  key=value" lines.

With KEY=VALUE arguments and --rm flags, sets and removes tags in one atomic
change: sets first, then removals, so "a=1 --rm a" removes a. The value is
everything after the first "=" (it may be empty or contain "="). One
tags_change event records the full tags before and after; a change that
changes nothing writes nothing.

Limits: a key is at most 256 bytes, a value at most 4096; a session has at
most 256 tags, at most 64 KiB in all. Keep larger data in "pty state".

Sessions started by "pty up" are managed by their pty.toml: "pty up" sets
the tags that file declares again, so edit the file for lasting changes.

Examples:
  pty tag web
  pty tag web role=frontend env=prod
  pty tag web --rm env`
	var rm cli.StringList
	c.Flags.Var(&rm, "rm", "remove tag `KEY` (repeatable; applied after the sets)")
	args := c.Parse(os.Args[1:])
	if len(args) == 0 {
		cli.Fatalf("no session given: pty tag REF [KEY=VALUE...] [--rm KEY...]")
	}
	ref, ops := args[0], args[1:]
	set := map[string]string{}
	for _, op := range ops {
		k, v, err := cli.ParseKV("tag", op)
		cli.Check(err)
		set[k] = v
	}
	cli.Check(layout.ValidateTagOps(set, rm))

	root := cli.Root()
	s := cli.Resolve(root, ref)
	cli.Check(s.DamagedErr())
	if len(set) == 0 && len(rm) == 0 {
		if len(s.Meta.Tags) == 0 {
			fmt.Printf("No tags on %q.\n", s.Name())
			return
		}
		for _, kv := range layout.SortedTags(s.Meta.Tags) {
			fmt.Println("  " + listing.Printable(kv))
		}
		return
	}
	cli.Check(layout.CheckWritableRoot(root))
	_, m, err := layout.At(root).SetTags(s.ID, set, rm)
	cli.Check(err)
	if file, ok := m.Tag(layout.TagPtyfile); ok {
		fmt.Fprintf(os.Stderr, "pty: warning: %q is managed by %s; \"pty up\" sets the tags that file declares again, so edit it for lasting changes.\n", s.Name(), file)
	}
}
