package web

import (
	"context"
	"errors"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	rt "github.com/ptyorg/pty/pkg/remote"
	"github.com/ptyorg/pty/pkg/web"
)

// remotes are the hosts of remotes.toml for --remotes: listed over each
// one's remote-serve, and followed over routes as pty attach --remote
// follows a session.
func remotes(io cli.IO) ([]web.RemoteHost, error) {
	cfg, err := rt.LoadConfig(io.Getenv)
	if err != nil {
		return nil, err
	}
	if len(cfg.Names) == 0 {
		return nil, errors.New("--remotes: no hosts in " + cfg.Path + ": add a table per host, like [web] with ssh = \"me@web.example.com\" (see docs/remote.md)")
	}
	out := make([]web.RemoteHost, 0, len(cfg.Names))
	for _, name := range cfg.Names {
		t, terr := rt.Resolve(name, cfg)
		d := rt.Dialer{Target: t, Getenv: io.Getenv}
		out = append(out, web.RemoteHost{
			Label: name,
			List: func(ctx context.Context) ([]web.RemoteRow, error) {
				if terr != nil {
					return nil, terr
				}
				rows, err := t.List(ctx, io.Getenv)
				if err != nil {
					return nil, err
				}
				out := make([]web.RemoteRow, len(rows))
				for i, r := range rows {
					out[i] = web.RemoteRow{Name: r.Name, Status: r.Status, Command: r.Command, Cwd: r.Cwd, DisplayName: r.DisplayName,
						Changed: r.Changed(), Ending: r.Ending(), Activity: r.Activity}
				}
				return out, nil
			},
			Route: func(ctx context.Context, ref string) (*client.Conn, func(), error) {
				if terr != nil {
					return nil, nil, terr
				}
				c, s, err := d.Route(ctx, ref)
				if err != nil {
					return nil, nil, err
				}
				return c, func() { s.Close() }, nil
			},
			Final: func(err error) bool { return terr != nil || !rt.IsTransport(err) },
		})
	}
	return out, nil
}
