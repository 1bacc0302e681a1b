// Package tagmulti is `pty tag-multi`: show or change the tags of several
// sessions chosen by reference, by tags or all at once. cmd/pty-tag-multi
// only parses the command line and calls Run, which does the work against
// the streams and root it is given.
package tagmulti

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Options are pty tag-multi's flags and arguments.
type Options struct {
	Args    []string // REFs and KEY=VALUE tags to set
	Rm      []string // tags to remove, after the sets
	Filters []string // --filter-tag K=V
	All     bool
	JSON    bool
	Yes     bool // confirm a write to --all sessions
	// Reserved shows the tags pty and tools manage (ptyfile*, strategy*,
	// :*) when reading, as list --tags does; --json always has them.
	Reserved bool
}

// Command declares tag-multi's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("tag-multi",
		"pty tag-multi (REF... | --filter-tag K=V... | --all) [KEY=VALUE...] [--rm KEY...] [--json | --tags] [-y]",
		"Show or change the tags of several sessions.")
	c.Long = `Choose the sessions with exactly one selector:
  REF...             sessions by id or display name; every one must resolve
                     before anything is written
  --filter-tag K=V   sessions having all these tags (repeatable)
  --all              every session (writing needs --yes)

Arguments with "=" are tags to set (KEY=VALUE, the value is everything after
the first "="); --rm KEY removes a tag. Sets apply before removals. Without
any, the sessions' tags are printed (--json: {"id": {"key": "value"}}). As in
"pty list", the printed lines leave out the tags pty and tools manage
(ptyfile*, strategy*, :*) unless --tags is given; --json has every tag.
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
	fs := c.Flags
	fs.Var((*cli.StringList)(&o.Rm), "rm", "remove tag `KEY` (repeatable; applied after the sets)")
	fs.Var((*cli.StringList)(&o.Filters), "filter-tag", "select sessions with tag `K=V` (repeatable; all must match)")
	fs.BoolVar(&o.All, "all", false, "select every session")
	fs.BoolVar(&o.JSON, "json", false, "when reading, print {\"id\": {tags}} as JSON")
	fs.BoolVar(&o.Reserved, "tags", false, "when reading, also show reserved tags (ptyfile*, strategy*, :*), as pty list --tags does")
	fs.BoolVar(&o.Yes, "yes", false, "confirm a write to --all sessions")
	c.Alias("y", "yes")
	return c
}

// Run selects the sessions, then prints their tags or changes them. A
// session that fails is reported on io.Err and the rest are still
// changed; Run then returns a cli.ExitCode with status 1.
func Run(o Options, io cli.IO) error {
	var refs []string
	set := map[string]string{}
	for _, a := range o.Args {
		if strings.Contains(a, "=") {
			k, v, err := cli.ParseKV("tag", a)
			if err != nil {
				return err
			}
			set[k] = v
		} else {
			refs = append(refs, a)
		}
	}
	want := map[string]string{}
	for _, f := range o.Filters {
		k, v, err := cli.ParseKV("--filter-tag", f)
		if err != nil {
			return err
		}
		want[k] = v
	}
	selectors := 0
	for _, used := range []bool{len(refs) > 0, len(o.Filters) > 0, o.All} {
		if used {
			selectors++
		}
	}
	switch {
	case selectors == 0:
		return fmt.Errorf("choose the sessions: give REF..., --filter-tag K=V or --all (see 'pty tag-multi --help')")
	case selectors > 1 && len(refs) > 0:
		return fmt.Errorf("%q is not KEY=VALUE, and sessions are already chosen by --filter-tag or --all: use one selector, and write tags as KEY=VALUE", refs[0])
	case selectors > 1:
		return fmt.Errorf("--filter-tag and --all cannot be combined: use one selector")
	}
	if err := layout.ValidateTagOps(set, o.Rm); err != nil {
		return err
	}
	writing := len(set) > 0 || len(o.Rm) > 0
	if writing && o.JSON {
		return fmt.Errorf("--json is for reading tags; drop it, or drop the changes to read")
	}

	root := io.Root
	if writing {
		if err := rootdir.CheckWritable(root); err != nil {
			return err
		}
	}
	sessions, err := selectSessions(root, refs, want, o.All, io)
	if err != nil {
		return err
	}
	if len(sessions) == 0 {
		fmt.Fprintln(io.Out, "0 sessions matched.")
		return nil
	}
	if !writing {
		return show(sessions, o.JSON, o.Reserved, io)
	}
	if o.All && !o.Yes {
		n := 0
		for _, s := range sessions {
			if !maps.Equal(layout.ApplyTags(s.Meta.Tags, set, o.Rm), nonNil(s.Meta.Tags)) {
				n++
			}
		}
		return fmt.Errorf("--all would change the tags of %d of %d sessions; add --yes to apply", n, len(sessions))
	}

	var cond func(map[string]string) bool
	if len(want) > 0 {
		cond = func(tags map[string]string) bool { return matches(tags, want) }
	}
	var changed, same, skipped, failed int
	for _, s := range sessions {
		ch, m, err := layout.At(root).SetTagsIf(s.ID, cond, set, o.Rm)
		switch {
		case errors.Is(err, layout.ErrConditionFailed):
			skipped++
			continue
		case err != nil:
			failed++
			fmt.Fprintf(io.Err, "pty: tag %s: %v\n", s.ID, err)
			continue
		case ch:
			changed++
		default:
			same++
		}
		if file, ok := m.Tag(layout.TagPtyfile); ok && ch {
			fmt.Fprintf(io.Err, "pty: warning: %q is managed by %s; \"pty up\" sets the tags that file declares again.\n", s.Name(), file)
		}
	}
	msg := fmt.Sprintf("Changed tags on %s", plural(changed))
	if same > 0 {
		msg += fmt.Sprintf(", %d already up to date", same)
	}
	if skipped > 0 {
		msg += fmt.Sprintf(", %d skipped (tags no longer match)", skipped)
	}
	if failed > 0 {
		msg += fmt.Sprintf(", %d failed", failed)
	}
	fmt.Fprintln(io.Out, msg+".")
	if failed > 0 {
		return cli.ExitCode(1)
	}
	return nil
}

// selectSessions resolves every explicit ref before anything is written,
// so one typo cannot leave a half-applied bulk change.
func selectSessions(root string, refs []string, want map[string]string, all bool, io cli.IO) ([]layout.Session, error) {
	if len(refs) > 0 {
		var out []layout.Session
		seen := map[string]bool{}
		var errs []string
		var first error
		for _, r := range refs {
			s, err := layout.At(root).Resolve(r)
			if err == nil {
				err = s.DamagedErr()
			}
			if err != nil {
				if first == nil {
					first = err
				}
				errs = append(errs, err.Error())
				continue
			}
			if !seen[s.ID] {
				seen[s.ID] = true
				out = append(out, s)
			}
		}
		if len(errs) > 0 {
			msg := strings.Join(errs, " ") + " Nothing was changed."
			if cli.IsSentence(first) {
				return nil, cli.Sentencef("%s", msg)
			}
			return nil, errors.New(msg)
		}
		return out, nil
	}
	list, err := layout.At(root).List()
	if err != nil {
		return nil, err
	}
	if all {
		// A damaged record has no tags to show or change: say so and
		// go on, rather than fail every --all for one broken file.
		out := list[:0]
		for _, s := range list {
			if s.Damaged != "" {
				fmt.Fprintf(io.Err, "pty: skipping %s: its record is damaged (%s)\n", s.ID, s.Damaged)
				continue
			}
			out = append(out, s)
		}
		return out, nil
	}
	var out []layout.Session
	for _, s := range list {
		if matches(s.Meta.Tags, want) {
			out = append(out, s)
		}
	}
	return out, nil
}

func matches(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func show(sessions []layout.Session, asJSON, reserved bool, io cli.IO) error {
	if asJSON {
		out := map[string]map[string]string{}
		for _, s := range sessions {
			out[s.ID] = nonNil(s.Meta.Tags)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(io.Out, string(b))
		return nil
	}
	hidden := 0
	for _, s := range sessions {
		head := s.ID
		if s.Name() != s.ID {
			head += fmt.Sprintf(" (%s)", s.Name())
		}
		fmt.Fprintln(io.Out, head+":")
		shown := 0
		for _, kv := range layout.SortedTags(s.Meta.Tags) {
			if k, _, _ := strings.Cut(kv, "="); !reserved && layout.ReservedTag(k) {
				hidden++
				continue
			}
			fmt.Fprintln(io.Out, "  "+listing.Printable(kv))
			shown++
		}
		if shown == 0 {
			fmt.Fprintln(io.Out, "  (no tags)")
		}
	}
	if hidden > 0 {
		fmt.Fprintf(io.Out, "(%s hidden: ptyfile*, strategy*, :*; --tags shows them)\n", pluralTags(hidden))
	}
	return nil
}

func pluralTags(n int) string {
	if n == 1 {
		return "1 reserved tag"
	}
	return fmt.Sprintf("%d reserved tags", n)
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func plural(n int) string {
	if n == 1 {
		return "1 session"
	}
	return fmt.Sprintf("%d sessions", n)
}
