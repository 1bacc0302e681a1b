// Package show is the part of "pty list" that reads the registry and
// prints it: what prompts, status bars and watch loops run. cmd/pty-list
// runs it in-process for the plain command lines (Args) and hands every
// other one to pty-list-full (package list), which parses flags with
// pkg/cli and calls the same Print: flag parsing, signal handling and fmt
// cost every start their set-up, whether the run uses them or not.
package show

import (
	"io"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/cli/lite"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/listing"
)

// Options are what Print prints.
type Options struct {
	JSON   bool           // --json
	Tags   bool           // --tags: reserved tags too
	Filter listing.Filter // --filter-tag, --status, --older-than, --newer-than
	// Summary, when set, prints the selected sessions in place of the
	// listing (--summary: the full command's, whose text is put together
	// with fmt).
	Summary func(w io.Writer, ss []layout.Session, st listing.Style, json bool) error
}

// Args reads the command lines this package serves alone: no arguments,
// --json and --tags (or -json, -tags), each at most once. Anything else
// (other flags, a flag's =value, --help, arguments, mistakes) is for the
// full command line parser, and ok is false.
func Args(args []string) (o Options, ok bool) {
	for _, a := range args {
		switch a {
		case "--json", "-json":
			if o.JSON {
				return Options{}, false
			}
			o.JSON = true
		case "--tags", "-tags":
			if o.Tags {
				return Options{}, false
			}
			o.Tags = true
		default:
			return Options{}, false
		}
	}
	return o, true
}

// Print prints the sessions o selects. Colour is used only when io.Out is
// a terminal and NO_COLOR is not set in io.Env.
func Print(io lite.IO, o Options) error {
	all, err := layout.At(io.Root).List()
	if err != nil {
		return err
	}
	now := io.Now()
	ss := listing.Select(all, o.Filter, now)

	_, noColor := io.LookupEnv("NO_COLOR")
	out := io.OutFile()
	style := listing.Style{
		Color:    !noColor && out != nil && term.IsTerminal(int(out.Fd())),
		ShowTags: o.Tags,
		Home:     io.Getenv("HOME"),
		Now:      now,
	}
	switch {
	case o.Summary != nil:
		return o.Summary(io.Out, ss, style, o.JSON)
	case o.JSON:
		return listing.WriteJSON(io.Out, ss)
	}
	empty := "No sessions."
	if len(all) > 0 {
		empty = "No sessions match."
	}
	return listing.WriteText(io.Out, ss, style, empty)
}
