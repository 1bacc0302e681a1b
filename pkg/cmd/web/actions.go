package web

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/cmd/kill"
	"github.com/ptyorg/pty/pkg/cmd/restart"
	"github.com/ptyorg/pty/pkg/cmd/run"
	"github.com/ptyorg/pty/pkg/web"
)

// actions are the page's kill, restart and new-session buttons, done by
// the code of pty kill, pty restart -y and pty run -d, so the page and the
// commands never differ. What the commands print on stderr becomes the
// error when they fail.
func actions(io cli.IO) *web.Actions {
	sub := func() (cli.IO, *bytes.Buffer, *bytes.Buffer) {
		var out, errb bytes.Buffer
		s := io
		s.In, s.Out, s.Err = nil, &out, &errb
		return s, &out, &errb
	}
	result := func(out, errb *bytes.Buffer, err error) (string, error) {
		msg := strings.TrimSpace(out.String())
		if err != nil {
			if e := strings.TrimSpace(errb.String()); e != "" {
				return msg, errors.New(e + "\n" + err.Error())
			}
			return msg, err
		}
		return msg, nil
	}
	return &web.Actions{
		Kill: func(ctx context.Context, id string) (string, error) {
			s, out, errb := sub()
			return result(out, errb, kill.Run(kill.Options{Args: []string{id}}, s))
		},
		Restart: func(ctx context.Context, id string) (string, error) {
			s, out, errb := sub()
			return result(out, errb, restart.Run(ctx, restart.Options{Yes: true, Args: []string{id}}, s))
		},
		Start: func(ctx context.Context, r web.StartRequest) (string, error) {
			s, out, errb := sub()
			o := run.Options{Argv: r.Argv, Detach: true, PrintID: true, Cwd: r.Cwd, Name: r.Name, NameSet: r.Name != ""}
			id, err := result(out, errb, run.Run(ctx, o, s))
			return strings.TrimSpace(id), err
		},
	}
}
