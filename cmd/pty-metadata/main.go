// Command pty-metadata patches a session's display name and tags from a
// JSON document, for programs that manage sessions by exact id.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

// maxPatch bounds stdin: a patch is a name and some tags.
const maxPatch = 1 << 20

func main() {
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
	id := c.Flags.String("id", "", "the session's exact `ID`")
	c.Values("id", cli.ValueRef)
	args := c.Parse(os.Args[1:])
	switch {
	case len(args) == 0:
		cli.Fatalf("no action given: pty metadata patch --id ID < patch.json")
	case args[0] != "patch":
		cli.Fatalf("unknown action %q: the only action is patch (pty metadata patch --id ID < patch.json)", args[0])
	case len(args) > 1:
		cli.Fatalf("unexpected argument %q: the patch is read from stdin", args[1])
	case *id == "":
		cli.Fatalf("--id is required: pty metadata patch --id ID < patch.json")
	}
	cli.Check(layout.ValidateID(*id))
	if term.IsTerminal(int(os.Stdin.Fd())) {
		cli.Fatalf("the patch is read from stdin: pipe a JSON object, as in: echo '{\"tags\":{\"role\":\"web\"}}' | pty metadata patch --id %s", *id)
	}
	b, err := io.ReadAll(io.LimitReader(os.Stdin, maxPatch+1))
	if err != nil {
		cli.Fatalf("read the patch from stdin: %v", err)
	}
	if len(b) > maxPatch {
		cli.Fatalf("the patch is over %d bytes: it holds a name and tags, nothing larger", maxPatch)
	}
	p, err := layout.ParseMetadataPatch(b)
	cli.Check(err)
	root := cli.WritableRoot()
	changed, m, err := layout.At(root).Patch(*id, p)
	if errors.Is(err, layout.ErrNotFound) {
		cli.Fatalf("Session %q not found. (metadata patch takes an exact id, not a display name)", *id)
	}
	cli.Check(err)
	out, err := json.Marshal(struct {
		Changed  bool             `json:"changed"`
		Metadata *layout.Metadata `json:"metadata"`
	}{changed, m})
	cli.Check(err)
	fmt.Println(string(out))
}
