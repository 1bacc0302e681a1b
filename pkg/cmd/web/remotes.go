package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	stdio "io"
	"os"
	"strings"
	"sync"
	"time"

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
		// Its routes carry a page's live screen, and its commands follow
		// the session's events.
		d := rt.Dialer{Target: t, Getenv: io.Getenv, Lasting: true}
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
			Run: func(ctx context.Context, args []string, out stdio.Writer) error {
				if terr != nil {
					return terr
				}
				return runOn(ctx, d, args, out)
			},
		})
	}
	return out, nil
}

// runOn runs "pty ARGS" on the host as pty --remote HOST does for a
// command that is not routed (Dialer.Run), its standard output copied to
// out; when it fails, what it said on standard error (its last 4 KiB) is
// the error.
func runOn(ctx context.Context, d rt.Dialer, args []string, out stdio.Writer) error {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer null.Close()
	or, ow, err := os.Pipe()
	if err != nil {
		return err
	}
	defer or.Close()
	er, ew, err := os.Pipe()
	if err != nil {
		ow.Close()
		return err
	}
	defer er.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); stdio.Copy(out, or) }()
	errs := &lastBytes{n: 4 << 10}
	go func() { defer wg.Done(); stdio.Copy(errs, er) }()
	code, err := d.Run(ctx, args, null, ow, ew, false)
	ow.Close()
	ew.Close()
	// The copies end with the command; a process of the host's that
	// kept a descriptor would hold them, so not for long.
	copied := make(chan struct{})
	go func() { wg.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(time.Second):
		or.Close()
		er.Close()
		<-copied
	}
	if err != nil {
		return err
	}
	if code != 0 {
		if msg := strings.TrimSpace(errs.String()); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("pty %s on %s exited with status %d", args[0], d.Label(), code)
	}
	return nil
}

// lastBytes keeps the last n bytes written to it.
type lastBytes struct {
	mu sync.Mutex
	n  int
	b  []byte
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	if len(l.b) > l.n {
		l.b = l.b[len(l.b)-l.n:]
	}
	return len(p), nil
}

func (l *lastBytes) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(bytes.ToValidUTF8(l.b, nil))
}
