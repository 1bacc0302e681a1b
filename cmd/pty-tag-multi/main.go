// Command pty-tag-multi shows or changes the tags of several sessions.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
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
	fs := c.Flags
	var rm, filters cli.StringList
	fs.Var(&rm, "rm", "remove tag `KEY` (repeatable; applied after the sets)")
	fs.Var(&filters, "filter-tag", "select sessions with tag `K=V` (repeatable; all must match)")
	all := fs.Bool("all", false, "select every session")
	asJSON := fs.Bool("json", false, "when reading, print {\"id\": {tags}} as JSON")
	var yes bool
	fs.BoolVar(&yes, "yes", false, "confirm a write to --all sessions")
	fs.BoolVar(&yes, "y", false, "short for --yes")
	args := c.Parse(os.Args[1:])

	var refs []string
	set := map[string]string{}
	for _, a := range args {
		if strings.Contains(a, "=") {
			k, v, err := cli.ParseKV("tag", a)
			cli.Check(err)
			set[k] = v
		} else {
			refs = append(refs, a)
		}
	}
	want := map[string]string{}
	for _, f := range filters {
		k, v, err := cli.ParseKV("--filter-tag", f)
		cli.Check(err)
		want[k] = v
	}
	selectors := 0
	for _, used := range []bool{len(refs) > 0, len(filters) > 0, *all} {
		if used {
			selectors++
		}
	}
	switch {
	case selectors == 0:
		cli.Fatalf("choose the sessions: give REF..., --filter-tag K=V or --all (see 'pty tag-multi --help')")
	case selectors > 1 && len(refs) > 0:
		cli.Fatalf("%q is not KEY=VALUE, and sessions are already chosen by --filter-tag or --all: use one selector, and write tags as KEY=VALUE", refs[0])
	case selectors > 1:
		cli.Fatalf("--filter-tag and --all cannot be combined: use one selector")
	}
	cli.Check(layout.ValidateTagOps(set, rm))
	writing := len(set) > 0 || len(rm) > 0
	if writing && *asJSON {
		cli.Fatalf("--json is for reading tags; drop it, or drop the changes to read")
	}

	root := cli.Root()
	if writing {
		cli.Check(layout.CheckWritableRoot(root))
	}
	sessions := selectSessions(root, refs, want, *all)
	if len(sessions) == 0 {
		fmt.Println("0 sessions matched.")
		return
	}
	if !writing {
		show(sessions, *asJSON)
		return
	}
	if *all && !yes {
		n := 0
		for _, s := range sessions {
			if !maps.Equal(layout.ApplyTags(s.Meta.Tags, set, rm), nonNil(s.Meta.Tags)) {
				n++
			}
		}
		cli.Fatalf("--all would change the tags of %d of %d sessions; add --yes to apply", n, len(sessions))
	}

	var cond func(map[string]string) bool
	if len(want) > 0 {
		cond = func(tags map[string]string) bool { return matches(tags, want) }
	}
	var changed, same, skipped, failed int
	for _, s := range sessions {
		ch, m, err := layout.SetTagsIf(root, s.ID, cond, set, rm)
		switch {
		case errors.Is(err, layout.ErrConditionFailed):
			skipped++
			continue
		case err != nil:
			failed++
			fmt.Fprintf(os.Stderr, "pty: tag %s: %v\n", s.ID, err)
			continue
		case ch:
			changed++
		default:
			same++
		}
		if file, ok := m.Tag(layout.TagPtyfile); ok && ch {
			fmt.Fprintf(os.Stderr, "pty: warning: %q is managed by %s; \"pty up\" sets the tags that file declares again.\n", s.Name(), file)
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
	fmt.Println(msg + ".")
	if failed > 0 {
		os.Exit(1)
	}
}

// selectSessions resolves every explicit ref before anything is written,
// so one typo cannot leave a half-applied bulk change.
func selectSessions(root string, refs []string, want map[string]string, all bool) []layout.Session {
	if len(refs) > 0 {
		var out []layout.Session
		seen := map[string]bool{}
		var errs []string
		for _, r := range refs {
			s, err := layout.Resolve(root, r)
			if err == nil {
				err = s.DamagedErr()
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			if !seen[s.ID] {
				seen[s.ID] = true
				out = append(out, s)
			}
		}
		if len(errs) > 0 {
			cli.Fatalf("%s Nothing was changed.", strings.Join(errs, " "))
		}
		return out
	}
	list, err := layout.List(root)
	cli.Check(err)
	if all {
		// A damaged record has no tags to show or change: say so and
		// go on, rather than fail every --all for one broken file.
		out := list[:0]
		for _, s := range list {
			if s.Damaged != "" {
				fmt.Fprintf(os.Stderr, "pty: skipping %s: its record is damaged (%s)\n", s.ID, s.Damaged)
				continue
			}
			out = append(out, s)
		}
		return out
	}
	var out []layout.Session
	for _, s := range list {
		if matches(s.Meta.Tags, want) {
			out = append(out, s)
		}
	}
	return out
}

func matches(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func show(sessions []layout.Session, asJSON bool) {
	if asJSON {
		out := map[string]map[string]string{}
		for _, s := range sessions {
			out[s.ID] = nonNil(s.Meta.Tags)
		}
		b, err := json.MarshalIndent(out, "", "  ")
		cli.Check(err)
		fmt.Println(string(b))
		return
	}
	for _, s := range sessions {
		head := s.ID
		if s.Name() != s.ID {
			head += fmt.Sprintf(" (%s)", s.Name())
		}
		fmt.Println(head + ":")
		if len(s.Meta.Tags) == 0 {
			fmt.Println("  (no tags)")
		}
		for _, kv := range layout.SortedTags(s.Meta.Tags) {
			fmt.Println("  " + kv)
		}
	}
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
