// Command pty-attach connects this terminal to a session; Ctrl+\ detaches.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/client"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/spawn"
)

func main() {
	c := cli.NewCommand("attach",
		"pty attach [-r] [--no-restart] [--force] [--history N] REF",
		"Attach this terminal to a session (Ctrl+\\ detaches).")
	c.Long = `REF is a session id or a unique display name. Press Ctrl+\ to detach; press
it twice quickly to send a Ctrl+\ to the program instead.

The session's scrollback is written into this terminal's own scrollback
first, so you can scroll back to it as usual (--history N: only the last N
lines, 0 for none). Reattaching in the same terminal writes it again.

If the session has ended, its last output is shown and you are asked
whether to restart it with the same command, directory and environment.`
	fs := c.Flags
	restart := fs.Bool("r", false, "restart an ended session without asking")
	fs.BoolVar(restart, "auto-restart", false, "same as -r")
	noRestart := fs.Bool("no-restart", false, "fail instead of offering to restart an ended session")
	force := fs.Bool("force", false, "attach even from inside a session")
	fs.Var(&history, "history", client.HistoryUsage)
	args := c.Parse(os.Args[1:])
	cli.Check(history.FromEnv())
	if *restart && *noRestart {
		cli.Fatalf("-r and --no-restart contradict each other: use one")
	}
	if len(args) != 1 {
		cli.Fatalf("attach takes one session reference, as in: pty attach ID (see 'pty attach --help')")
	}
	if outer := os.Getenv("PTY_SESSION"); outer != "" && !*force {
		cli.Fatalf("already inside pty session %q: attaching here would nest sessions. Detach first with Ctrl+\\, or pass --force", outer)
	}
	root := cli.Root()
	s := cli.Resolve(root, args[0])
	// An ended session's daemon still answers for a moment (its grace
	// period): then the attach shows the final screen and exit code.
	if s.Status == layout.Running || s.Status == layout.Exited {
		if conn, err := client.Dial(root, s.ID); err == nil {
			os.Exit(run(conn, s.ID))
		}
		s = reload(root, s)
		if s.Status == layout.Running {
			cli.Fatalf("Session %q is not answering on its socket; try again, or stop it with \"pty kill %s\"", s.ID, s.ID)
		}
	}
	if *noRestart {
		cli.Fatalf("Session %q is not running (status: %s).", s.ID, s.Status)
	}
	if !*restart {
		for _, l := range s.Meta.LastLines {
			fmt.Println(l)
		}
		if s.Meta.ExitCode != nil {
			fmt.Printf("Session %q exited with code %d\n", s.ID, *s.Meta.ExitCode)
		} else {
			fmt.Printf("Session %q %s without an exit record\n", s.ID, s.Status)
		}
		fmt.Printf("Command was: %s\n", s.Meta.DisplayCommand)
		fmt.Print("Restart? [Y/n] ")
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && strings.TrimSpace(line) == "" {
			fmt.Println()
			return // no answer (stdin closed): do nothing rather than guess
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "", "y", "yes":
		default:
			return
		}
	}
	o := spawn.OptionsFromMetadata(s.ID, s.Meta)
	o.Replace = true
	// Agent variables of the terminal we restart from must not leak into
	// the restarted session (the original pty scrubbed these too).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ST_AGENT=") && !strings.HasPrefix(kv, "ST_ROOT=") {
			o.Env = append(o.Env, kv)
		}
	}
	// The user's terminal may differ from the one the session was made in.
	o.Rows, o.Cols = client.TermSize(os.Stdout, os.Stdin)
	id, err := spawn.Start(context.Background(), root, o)
	cli.Check(err)
	conn, err := client.Dial(root, id)
	if err != nil {
		cli.Fatalf("Session %q restarted but is not answering: %v", id, err)
	}
	os.Exit(run(conn, id))
}

func reload(root string, s layout.Session) layout.Session {
	if n, err := layout.Load(root, s.ID); err == nil {
		return n
	}
	return s
}

var history client.History

func run(conn *client.Conn, id string) int {
	defer conn.Close()
	o := client.AttachOptions{In: os.Stdin, Out: os.Stdout, OutFile: os.Stdout, Name: id}
	history.Apply(&o)
	res, err := client.Attach(conn, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pty: "+err.Error())
		return 1
	}
	if res.Exited {
		return res.Code
	}
	return 0
}
