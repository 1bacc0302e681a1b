package ui

import (
	"context"
	"os/exec"
	"time"

	"github.com/ptyorg/pty/internal/detachkey"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/commands"
	"github.com/ptyorg/pty/pkg/picker"
	rt "github.com/ptyorg/pty/pkg/remote"
)

// hostWait bounds one ask of a host, as the fleet list's does.
const hostWait = rt.ConnectTimeout + 5*time.Second

// hosts are the picker's groups for the hosts of remotes.toml: listed
// over each one's route to remote-serve, attached with "pty --remote HOST
// attach", the path every remote attach takes. A remotes.toml that cannot
// be read is one group showing why.
func hosts(io cli.IO, key detachkey.Key) []picker.Host {
	cfg, err := rt.LoadConfig(io.Getenv)
	if err != nil {
		return []picker.Host{{Label: rt.ConfigPath(io.Getenv), List: func(context.Context) ([]picker.RemoteSession, error) { return nil, err }}}
	}
	out := make([]picker.Host, 0, len(cfg.Names))
	for _, name := range cfg.Names {
		t, terr := rt.Resolve(name, cfg)
		out = append(out, picker.Host{
			Label: name,
			Wait:  hostWait,
			List: func(ctx context.Context) ([]picker.RemoteSession, error) {
				if terr != nil {
					return nil, terr
				}
				rows, err := t.List(ctx, io.Getenv)
				if err != nil {
					return nil, err
				}
				out := make([]picker.RemoteSession, len(rows))
				for i, r := range rows {
					out[i] = picker.RemoteSession{Name: r.Name, Status: r.Status, Command: r.Command, Cwd: r.Cwd, DisplayName: r.DisplayName, Tags: r.Tags,
						Changed: r.Changed(), Ending: r.Ending(), Activity: r.Activity}
				}
				return out, nil
			},
			Attach: func(ref string) *exec.Cmd {
				args := []string{"--remote", name, "attach"}
				if !key.IsDefault() {
					args = append(args, "--detach-key", key.Spec())
				}
				return exec.Command(ptyPath(), append(args, ref)...)
			},
		})
	}
	return out
}

// ptyPath is the pty beside this executable, else pty from PATH.
func ptyPath() string {
	if p, err := commands.Program("pty"); err == nil {
		return p
	}
	return "pty"
}
