// Package tag is "pty tag": show or change one session's tags. cmd/pty-tag
// only parses the command line and calls Run.
package tag

import (
	"errors"
	"fmt"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Options are tag's flags and arguments.
type Options struct {
	Rm   []string // --rm KEY, repeatable
	Args []string // REF [KEY=VALUE...]
}

// Command declares tag's flags, filling o.
func Command(o *Options) *cli.Command {
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
	c.Flags.Var((*cli.StringList)(&o.Rm), "rm", "remove tag `KEY` (repeatable; applied after the sets)")
	return c
}

// Run prints the tags of the session o.Args names, or changes them.
func Run(o Options, io cli.IO) error {
	if len(o.Args) == 0 {
		return errors.New("no session given: pty tag REF [KEY=VALUE...] [--rm KEY...]")
	}
	ref, ops := o.Args[0], o.Args[1:]
	set := map[string]string{}
	for _, op := range ops {
		k, v, err := cli.ParseKV("tag", op)
		if err != nil {
			return err
		}
		set[k] = v
	}
	if err := layout.ValidateTagOps(set, o.Rm); err != nil {
		return err
	}
	root := io.Root
	s, err := layout.At(root).Resolve(ref)
	if err != nil {
		return err
	}
	if err := s.DamagedErr(); err != nil {
		return err
	}
	if len(set) == 0 && len(o.Rm) == 0 {
		if len(s.Meta.Tags) == 0 {
			fmt.Fprintf(io.Out, "No tags on %q.\n", s.Name())
			return nil
		}
		for _, kv := range layout.SortedTags(s.Meta.Tags) {
			fmt.Fprintln(io.Out, "  "+listing.Printable(kv))
		}
		return nil
	}
	if err := rootdir.CheckWritable(root); err != nil {
		return err
	}
	_, m, err := layout.At(root).SetTags(s.ID, set, o.Rm)
	if err != nil {
		return err
	}
	if file, ok := m.Tag(layout.TagPtyfile); ok {
		fmt.Fprintf(io.Err, "pty: warning: %q is managed by %s; \"pty up\" sets the tags that file declares again, so edit it for lasting changes.\n", s.Name(), file)
	}
	return nil
}
