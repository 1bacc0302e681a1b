// Package web is "pty web": serve the sessions of the registry to a
// browser (pkg/web does the serving). cmd/pty-web only parses the command
// line and calls Run.
package web

import (
	"context"
	"fmt"
	"strconv"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/web"
)

// Options are web's flags and arguments.
type Options struct {
	Listen  string   // --listen ADDR
	Write   bool     // --write
	Remotes bool     // --remotes
	Args    []string // none are taken
}

// Command declares web's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("web", "pty web [--listen ADDR] [--write] [--remotes]")
	c.Long = `Serves every session of the registry to a browser: the list, updated as
sessions start, end and change, and each session's screen, live, with its
scrollback, title and recent events. Prints the URL to open on its first
line, then serves until interrupted.

The URL carries a random access token after '#' (http://127.0.0.1:7681/#TOKEN),
which the browser sends to no server. The page keeps it in the tab's
sessionStorage, never in a cookie (a browser sends a cookie to every port of
the host), and offers it only when it opens its live connections, which are
refused without it; the pages themselves hold no session data. Requests must
name the server by IP address or localhost.

With --write, a session's page also has Kill and Restart buttons (each
asks first) and the list a form for a new session: they do what pty kill,
pty restart -y and pty run -d do.

With --remotes, the list also shows the sessions of every host of
remotes.toml, grouped by host (each asked every 5 s, a host that fails
with its error), and a remote session's page follows it live over a
route to its host, reconnecting when the connection drops (the lines
printed meanwhile are added to its scrollback), with the host's events
(pty events, run there). With --write as well, typing goes to it over a
route, Kill and Restart run pty kill and pty restart -y on the host,
and the list's form can start a session there with pty run -d (see
docs/web.md).

Listens on ` + web.DefaultListen + ` unless --listen says otherwise. Anyone who
can reach the address and holds the token can watch the sessions (and,
with --write, type into them, kill, restart and start them): for another
device, forward the port over SSH (ssh -L 7681:127.0.0.1:7681 HOST) rather
than listening beyond this machine. Limits: ` + strconv.Itoa(web.MaxLiveConns) + ` live pages at once, pastes up to ` + strconv.Itoa(web.MaxPaste/1024) + ` KiB,
` + strconv.Itoa(web.MaxPendingConns) + ` connections waiting for a request at once (the oldest is closed
past that), ` + web.HeaderTimeout.String() + ` to send a request's headers.
See docs/web.md.`
	c.Flags.StringVar(&o.Listen, "listen", web.DefaultListen, "listen on `ADDR` (IP:PORT; a non-loopback address is reachable by others)")
	c.Flags.BoolVar(&o.Remotes, "remotes", false, "also list and follow the sessions of the hosts of remotes.toml")
	c.Flags.BoolVar(&o.Write, "write", false, "let pages type and paste into sessions, and kill, restart and start them (default: read-only)")
	return c
}

// Run serves until ctx is done, printing the URL to open as the first line
// of io.Out.
func Run(ctx context.Context, o Options, io cli.IO) error {
	if len(o.Args) > 0 {
		return fmt.Errorf("web takes no arguments, got %q (see 'pty web --help')", o.Args[0])
	}
	if _, err := web.CheckListen(o.Listen); err != nil {
		return err
	}
	// The list follows the registry directory, which must exist to be
	// watched; an empty registry is one sessions may still appear in.
	if err := layout.EnsureRoot(io.Root); err != nil {
		return err
	}
	wo := web.Options{Root: io.Root, Listen: o.Listen, Write: o.Write, Stdout: io.Out, Stderr: io.Err}
	if o.Write {
		wo.Actions = actions(io)
	}
	if o.Remotes {
		hosts, err := remotes(io)
		if err != nil {
			return err
		}
		wo.Remotes = hosts
	}
	return web.Run(ctx, wo)
}
