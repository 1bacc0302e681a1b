// Package metadata is "pty metadata patch": merge a JSON patch into a
// session's display name and tags, for programs that manage sessions by
// exact id. cmd/pty-metadata only parses the command line and calls Run.
package metadata

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// maxPatch bounds stdin: a patch is a name and some tags.
const maxPatch = 1 << 20

// Options are metadata's flags and arguments.
type Options struct {
	ID   string   // --id ID, exact
	Args []string // "patch"
}

// Command declares metadata's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("metadata", "pty metadata patch --id ID < patch.json")
	c.Long = `Reads one JSON object on stdin and merges it into the session's metadata in
one locked change:

  {"displayName": "text" | null, "tags": {"key": "value" | null}}

displayName: a string sets it, null clears it, absent leaves it. tags: a
string sets the key, null removes it, keys not mentioned are kept. Any other
field is an error, and nothing is written.

ID must be the session's exact id (display names are not resolved). Prints
{"changed": bool, "metadata": {...}} with the metadata after the patch. A
change appends one metadata_change event holding only what changed.

Examples:
  printf '%s' '{"displayName":"Worker","tags":{"role":"worker"}}' | pty metadata patch --id k3x9mz2a
  printf '%s' '{"displayName":null,"tags":{"temporary":null}}' | pty metadata patch --id k3x9mz2a`
	c.Flags.StringVar(&o.ID, "id", "", "the session's exact `ID`")
	c.Values("id", cli.ValueRef)
	return c
}

// Run reads the patch from cio.In and applies it to session o.ID.
func Run(o Options, cio cli.IO) error {
	switch {
	case len(o.Args) == 0:
		return errors.New("no action given: pty metadata patch --id ID < patch.json")
	case o.Args[0] != "patch":
		return fmt.Errorf("unknown action %q: the only action is patch (pty metadata patch --id ID < patch.json)", o.Args[0])
	case len(o.Args) > 1:
		return fmt.Errorf("unexpected argument %q: the patch is read from stdin", o.Args[1])
	case o.ID == "":
		return errors.New("--id is required: pty metadata patch --id ID < patch.json")
	}
	if err := layout.ValidateID(o.ID); err != nil {
		return err
	}
	if cio.In == nil || term.IsTerminal(int(cio.In.Fd())) {
		return fmt.Errorf("the patch is read from stdin: pipe a JSON object, as in: echo '{\"tags\":{\"role\":\"web\"}}' | pty metadata patch --id %s", o.ID)
	}
	b, err := io.ReadAll(io.LimitReader(cio.In, maxPatch+1))
	if err != nil {
		return fmt.Errorf("read the patch from stdin: %v", err)
	}
	if len(b) > maxPatch {
		return fmt.Errorf("the patch is over %d bytes: it holds a name and tags, nothing larger", maxPatch)
	}
	p, err := layout.ParseMetadataPatch(b)
	if err != nil {
		return err
	}
	root := cio.Root
	if err := rootdir.CheckWritable(root); err != nil {
		return err
	}
	changed, m, err := layout.At(root).Patch(o.ID, p)
	if errors.Is(err, layout.ErrNotFound) {
		return cli.Sentencef("Session %q not found. (metadata patch takes an exact id, not a display name)", o.ID)
	}
	if err != nil {
		return err
	}
	out, err := json.Marshal(struct {
		Changed  bool             `json:"changed"`
		Metadata *layout.Metadata `json:"metadata"`
	}{changed, m})
	if err != nil {
		return err
	}
	fmt.Fprintln(cio.Out, string(out))
	return nil
}
