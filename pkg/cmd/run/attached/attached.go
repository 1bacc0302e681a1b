// Package attached is the terminal side of pty run (run.Attacher): it
// attaches the user's terminal to the session run started or found. It is
// a package of its own because it links the attach client (pkg/client,
// pkg/cmd/attach) and, through them, the terminal emulator; pty run -d
// never attaches, and cmd/pty-run, which runs -d, does without it.
// cmd/pty-run-attach, the whole of pty run, uses it.
package attached

import (
	"fmt"
	"os"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/attach"
	"github.com/ptyorg/pty/pkg/layout"
)

// Terminal attaches through this process's terminal.
var Terminal terminal

type terminal struct{}

func (terminal) NeedTerminal(in *os.File) error {
	return attach.NeedTerminal(in, "pty run", "")
}

// Attach attaches to a session just started (or found running). A
// command that ends at once may be gone before we connect; its record,
// when kept, still says how it ended.
func (terminal) Attach(io cli.IO, id string, src detachkey.Source) error {
	root := io.Root
	key, err := src.Key(io.Getenv)
	if err != nil {
		return err
	}
	conn, err := client.Dial(root, id)
	if err != nil {
		if m, merr := layout.At(root).Metadata(id); merr == nil && m.ExitCode != nil {
			for _, l := range m.LastLines {
				fmt.Fprintln(io.Out, l)
			}
			fmt.Fprintf(io.Out, "[%s exited with code %d]\n", id, *m.ExitCode)
			if *m.ExitCode != 0 {
				return cli.ExitCode(*m.ExitCode)
			}
			return nil
		}
		return errs.Sentence(fmt.Sprintf("Session %q ended before it could be attached.", id), nil)
	}
	return attach.Session(conn, id, key, nil, io)
}
