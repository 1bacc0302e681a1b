// Package remote is "pty remote HOST COMMAND [ARGS...]", which the
// dispatcher runs for "pty --remote HOST COMMAND ...", "pty COMMAND
// --remote HOST ..." and PTY_REMOTE: the command on the sessions of
// another host. peek, send and attach run here, over a route to the
// session (pty remote-serve on the host), with this terminal's handling;
// every other command runs as "pty COMMAND ARGS" on the host, its
// streams and exit status carried back. "pty list --remote" (no host)
// lists this host and every host of remotes.toml (fleet.go).
// cmd/pty-remote only parses the command line and calls Run.
package remote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/cmd/attach"
	"github.com/ptyorg/pty/pkg/cmd/peek"
	"github.com/ptyorg/pty/pkg/cmd/send"
	"github.com/ptyorg/pty/pkg/commands"
	rt "github.com/ptyorg/pty/pkg/remote"
)

// Usage is the command line.
const Usage = `pty remote HOST COMMAND [ARGS...]
       pty remote --all-hosts list [LIST FLAGS]`

// Options are the host and the command to run on it.
type Options struct {
	Host     string
	AllHosts bool     // --all-hosts: the fleet list
	Args     []string // COMMAND [ARGS...]
}

// Command declares remote's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("remote", Usage, "Run a pty command on the sessions of another host, over ssh.")
	c.Long = `HOST is an ssh destination (host, user@host, an alias of ~/.ssh/config,
ssh://[user@]host[:port]) or a name from ~/.config/pty/remotes.toml
($XDG_CONFIG_HOME/pty/remotes.toml), whose tables say how to reach a host:

  [web]
  ssh = "me@web.example.com"   # or fabric = "peer" (a fabric peer)
  pty = "/home/me/bin/pty"     # optional: pty's path there

The same as "pty --remote HOST COMMAND ..." and "pty COMMAND --remote HOST
...", and as any command with PTY_REMOTE=HOST set. peek, send and attach
run here over a route to the session (pty remote-serve --stdio on the
host): this terminal, its detach key, its history; attach and peek -f
reconnect when the connection drops. Every other command runs as pty
COMMAND ARGS on the host, with its input, output and exit status.

ssh always runs in batch mode (a host that needs a password or an unknown
host key is an error, never a prompt), and repeated commands to a host
share one connection for 10 minutes (ControlMaster, in a private
directory); while it is up, list, peek, send and the commands run there
without a terminal go to it directly, starting no ssh. PTY_SSH_COMMAND
replaces "ssh" and may add options, as GIT_SSH_COMMAND does for git. See
docs/remote.md.

"pty list --remote" without a host (or --all-hosts) lists this host's
sessions and every remotes.toml host's, asked in parallel.`
	c.Flags.BoolVar(&o.AllHosts, "all-hosts", false, "with list: this host and every host of remotes.toml")
	return c
}

// Parse fills o from the command line (without the program name): flags
// of remote itself come before HOST.
func Parse(c *cli.Command, o *Options, args []string) {
	rest := c.ParseUntilPositional(args)
	if !o.AllHosts && len(rest) > 0 {
		o.Host, rest = rest[0], rest[1:]
	}
	o.Args = rest
}

// Run runs the command on the host.
func Run(ctx context.Context, o Options, io cli.IO) error {
	cfg, err := rt.LoadConfig(io.Getenv)
	if err != nil {
		return err
	}
	if o.AllHosts {
		if len(o.Args) == 0 || canonical(o.Args[0]) != "list" {
			return errors.New("--all-hosts is for list: pty list --remote, or pty remote --all-hosts list")
		}
		return fleet(ctx, cfg, cfg.Names, true, o.Args[1:], io)
	}
	if o.Host == "" {
		return errors.New("pty remote needs a host: pty --remote HOST COMMAND [ARGS...] (see 'pty remote --help')")
	}
	t, err := rt.Resolve(o.Host, cfg)
	if err != nil {
		return err
	}
	d := rt.Dialer{Target: t, Getenv: io.Getenv}
	args := o.Args
	if len(args) == 0 {
		args = []string{"ui"} // as pty alone opens the picker
	}
	router := func(d rt.Dialer) client.Router {
		return func(ref string, early []byte) (*client.Conn, func(), error) {
			c, s, err := d.Route(ctx, ref, early...)
			if err != nil {
				return nil, nil, err
			}
			return c, func() { s.Close() }, nil
		}
	}
	route := router(d)
	// An attach and a follow keep their route open.
	lasting := d
	lasting.Lasting = true
	longRoute := router(lasting)
	onHost := func() error { return passthrough(ctx, d, args, io) }
	switch canonical(args[0]) {
	case "list":
		if oneHostJSON(args[1:]) {
			return fleet(ctx, cfg, []string{o.Host}, false, args[1:], io)
		}
	case "peek":
		var po peek.Options
		c := peek.Command(&po)
		peek.Parse(c, &po, args[1:])
		follow := func(ref string, ao client.AttachOptions) (client.Result, error) {
			return reconnecting(ctx, d, longRoute, ref, ao, io)
		}
		return peek.RunRemote(po, io, peek.Remote{Route: route, Follow: follow, OnHost: onHost})
	case "send":
		var so send.Options
		c := send.Command(&so)
		send.Parse(c, &so, args[1:])
		so.Route = route
		return send.Run(so, io)
	case "attach":
		var ao attach.Options
		c := attach.Command(&ao)
		ao.Args = c.Parse(args[1:])
		client.IgnoreQuitKey()
		return attach.RunRemote(ao, io, t.Label, func(ref string, o client.AttachOptions) (client.Result, error) {
			return reconnecting(ctx, d, longRoute, ref, o, io)
		})
	case "remote", "remote-serve":
		return fmt.Errorf("pty %s runs here, not through --remote", args[0])
	}
	return passthrough(ctx, d, args, io)
}

// reconnecting is the attach loop that reconnects after a drop.
func reconnecting(ctx context.Context, d rt.Dialer, route client.Router, ref string, ao client.AttachOptions, io cli.IO) (client.Result, error) {
	n, err := client.ParseReconnectAttempts(io.Getenv(client.ReconnectAttemptsEnv))
	if err != nil {
		return client.Result{}, err
	}
	return client.AttachRouted(route, ref, ao, client.Reconnect{Host: d.Label(), MaxAttempts: n,
		Final: func(err error) bool { return !rt.IsTransport(err) },
		Ended: func(ref string, refusal error) (int, bool, error) { return ended(ctx, d, ref, refusal) }})
}

// ended is how session ref, attached to until the connection dropped,
// ended by the host's list, now that its route is refused: a route
// reaches only a session whose daemon answers, and the host keeps an
// exited session's record, with its exit code, until it is removed.
// exited with its code (128 plus the signal's number for one killed, as
// its daemon's EXIT says), or an error that says what became of it: gone
// from the list (removed, or its record reaped as it ended), or ended
// without an exit code (the original's host lists none). A session
// still listed as running or vanished, a REF that names several now, or
// a list that fails, leaves the refusal as it is (nil).
func ended(ctx context.Context, d rt.Dialer, ref string, refusal error) (int, bool, error) {
	var re *rt.RefusedError
	if !errors.As(refusal, &re) {
		return 0, false, nil // a refused login, say: nothing about the session
	}
	rows, err := d.Target.List(ctx, d.Getenv)
	if err != nil {
		return 0, false, nil
	}
	r, n := rt.FindRow(rows, ref)
	switch {
	case n > 1:
		return 0, false, nil // the refusal says so: sessions started meanwhile share REF
	case n == 0:
		return 0, false, errs.Sentence(fmt.Sprintf("Session %q is gone from %s: it was removed while the connection was down (pty rm, or its record reaped when it ended)", ref, d.Label()), nil)
	case r.Status != "exited":
		return 0, false, nil
	case r.ExitCode != nil:
		return *r.ExitCode, true, nil
	case r.Signal != nil:
		return 128 + *r.Signal, true, nil
	}
	return 0, false, errs.Sentence(fmt.Sprintf("Session %q on %s ended while the connection was down; its host does not say how (see pty --remote %s list)", ref, d.Label(), d.Label()), nil)
}

// passthrough runs "pty ARGS" on the host; a terminal there when this
// one is a terminal both ways (for attach, run and the picker).
func passthrough(ctx context.Context, d rt.Dialer, args []string, io cli.IO) error {
	out := io.OutFile()
	in := io.In
	tty := in != nil && out != nil && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
	errf, _ := io.Err.(*os.File)
	if errf == nil {
		errf = os.Stderr
	}
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	code, err := d.Run(ctx, args, in, out, errf, tty)
	if err != nil {
		return err
	}
	if code != 0 {
		return cli.ExitCode(code)
	}
	return nil
}

func canonical(sub string) string {
	if a, ok := commands.Unalias(sub); ok {
		return a
	}
	return strings.TrimSpace(sub)
}
