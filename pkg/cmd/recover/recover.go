// Package recover is "pty recover": bring back running sessions whose
// files were deleted with their whole root directory. A session daemon
// publishes its socket, pid file and record again by itself when one of
// them goes while the root stays (pkg/daemon, republish.go); when the
// root went, nothing is recreated until a user asks, with this command.
// cmd/pty-recover only parses the command line and calls Run.
package recover

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/registry"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
	"github.com/ptyorg/pty/pkg/procs"
)

const usage = `pty recover ID [--snapshot FILE]
       pty recover --all`

// Wait bounds how long Run waits for the daemons to publish themselves.
const Wait = 5 * time.Second

// Options are recover's flags and arguments.
type Options struct {
	All      bool     // --all
	Snapshot string   // --snapshot FILE
	Args     []string // [ID]
}

// Command declares recover's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("recover", usage)
	c.Long = `Bring back running sessions whose files were deleted. A session's daemon
publishes its socket, pid file and record again by itself, within a second
or two, when one of them is deleted while the root directory stays (a
session_republished event says so). When the whole root was removed, nothing
is recreated behind your back: pty recover finds the live daemons of the
root by their identity (their arguments, pty-daemon ID GENERATION ROOT, and
start time), creates the root again (mode 0700) and has them publish
themselves there again (SIGUSR1, sent only to those daemons). The sessions'
programs never stop; their screens and scrollback are the daemons'.

  ID      the session's exact id (display names are not resolved: the record
          that maps them may be what is gone)
  --all   every live daemon of the root that is missing its files

Each session brought back prints one line. A session whose id another
session has taken meanwhile is not touched: its daemon runs on unpublished
until its program ends, and the line names its pid, to stop it with kill.
When there is nothing to recover (no live daemon of the root, or none
missing its files) it says so and exits 1. Recovering a session that is
already published again succeeds.

--snapshot FILE (the form of the original pty's recover, which rebuilds the
record from a copy saved beforehand) is accepted as a check: FILE is a
record of the session, and only the daemon of that record's generation is
recovered. The record published is the daemon's own, which is the newest.

Examples:
  pty recover --all
  pty recover k3x9mz2a`
	c.Flags.BoolVar(&o.All, "all", false, "every live daemon of the root that is missing its files")
	c.Flags.StringVar(&o.Snapshot, "snapshot", "", "only the generation this saved record `FILE` names (with ID)")
	c.Values("snapshot", cli.ValueFile)
	return c
}

// Run recovers the sessions o names.
func Run(o Options, cio cli.IO) error {
	root := cio.Root
	var id string
	switch {
	case o.All && len(o.Args) > 0:
		return errors.New("give an ID or --all, not both")
	case len(o.Args) > 1:
		return errors.New("one ID at a time (or --all)")
	case !o.All && len(o.Args) == 0:
		return errors.New("give the session's ID, or --all (see 'pty recover --help')")
	case len(o.Args) == 1:
		id = o.Args[0]
		if err := layout.ValidateID(id); err != nil {
			return err
		}
	}
	if o.Snapshot != "" && id == "" {
		return errors.New("--snapshot needs the session's ID")
	}
	gen := ""
	if o.Snapshot != "" {
		g, err := snapshotGeneration(o.Snapshot)
		if err != nil {
			return err
		}
		gen = g
	}
	if err := rootdir.Check(root); err != nil {
		return err
	}
	found, err := registry.Daemons(root)
	if errors.Is(err, procs.ErrUnsupported) {
		return errors.New("this system has no process table to find session daemons in")
	}
	if err != nil {
		return fmt.Errorf("look for session daemons: %w", err)
	}
	var want []registry.LiveDaemon
	for _, d := range found {
		if (id == "" || d.ID == id) && (gen == "" || d.Generation == gen) {
			want = append(want, d)
		}
	}
	sort.Slice(want, func(i, j int) bool { return want[i].ID < want[j].ID })
	if len(want) == 0 {
		switch {
		case id != "" && gen != "":
			return cli.Sentencef("Session %q: no live daemon of generation %s in %s: nothing to recover.", id, gen, root)
		case id != "":
			return cli.Sentencef("Session %q: no live daemon in %s: nothing to recover.", id, root)
		}
		return cli.Sentencef("No live session daemon of %s: nothing to recover.", root)
	}

	var todo []registry.LiveDaemon
	failed := false
	for _, d := range want {
		switch state(root, d) {
		case published:
			if id != "" {
				fmt.Fprintf(cio.Out, "Session %q is published (daemon pid %d): nothing to do.\n", d.ID, d.Proc.Pid)
			}
		case taken:
			fmt.Fprintf(cio.Err, "Session %q: the id is another session's now; its old daemon (pid %d) runs on unpublished until its program ends: stop it with kill %d\n", d.ID, d.Proc.Pid, d.Proc.Pid)
			failed = true
		default:
			todo = append(todo, d)
		}
	}
	if len(todo) == 0 {
		if failed {
			return cli.ExitCode(1)
		}
		if id != "" {
			return nil
		}
		return cli.Sentencef("No session of %s is missing its files: nothing to recover.", root)
	}
	// The root as every writer creates it: 0700 and this user's.
	if err := layout.EnsureRoot(root); err != nil {
		return err
	}
	var asked []registry.LiveDaemon
	for _, d := range todo {
		err := procs.SignalIf(d.Proc.Pid, syscall.SIGUSR1, func() bool {
			return procs.Still(d.Proc) && layout.At(root).VerifyDaemon(d.Proc.Pid, d.ID, d.Generation)
		})
		if err != nil {
			fmt.Fprintf(cio.Err, "Session %q: its daemon (pid %d) is gone: not recovered.\n", d.ID, d.Proc.Pid)
			failed = true
			continue
		}
		asked = append(asked, d)
	}
	deadline := time.Now().Add(Wait)
	for _, d := range asked {
		s := state(root, d)
		for s == unpublished && time.Now().Before(deadline) && procs.Still(d.Proc) {
			time.Sleep(20 * time.Millisecond)
			s = state(root, d)
		}
		switch s {
		case published:
			fmt.Fprintf(cio.Out, "Recovered: %s (daemon pid %d), without a restart.\n", d.ID, d.Proc.Pid)
		case taken:
			fmt.Fprintf(cio.Err, "Session %q: the id is another session's now; its old daemon (pid %d) runs on unpublished until its program ends: stop it with kill %d\n", d.ID, d.Proc.Pid, d.Proc.Pid)
			failed = true
		default:
			if procs.Still(d.Proc) {
				fmt.Fprintf(cio.Err, "Session %q: its daemon (pid %d) did not publish itself within %v (a pty-daemon older than this pty does not know how): its error log is %s\n", d.ID, d.Proc.Pid, Wait, layout.At(root).Paths(d.ID).DaemonLog())
			} else {
				fmt.Fprintf(cio.Err, "Session %q: its daemon (pid %d) ended meanwhile.\n", d.ID, d.Proc.Pid)
			}
			failed = true
		}
	}
	if failed {
		return cli.ExitCode(1)
	}
	return nil
}

type pubState int

const (
	unpublished pubState = iota
	published
	taken // another generation has the id
)

// state says whether daemon d's session is published in root: its
// record of d's generation, its pid file naming d, and its socket
// answering.
func state(root string, d registry.LiveDaemon) pubState {
	r := layout.At(root)
	if g, ok := registry.ReadLaunchClaim(root, d.ID); ok && g != d.Generation {
		return taken
	}
	m, err := r.Metadata(d.ID)
	if err == nil && m.Generation != d.Generation {
		return taken
	}
	if err != nil || r.Pid(d.ID) != d.Proc.Pid {
		return unpublished
	}
	c, err := net.DialTimeout("unix", r.Paths(d.ID).Sock(), time.Second)
	if err != nil {
		return unpublished
	}
	c.Close()
	return published
}

// snapshotGeneration reads the generation of the saved record at path.
func snapshotGeneration(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read the snapshot: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, layout.MaxRecordBytes))
	if err != nil {
		return "", fmt.Errorf("read the snapshot %s: %w", path, err)
	}
	var m layout.Metadata
	if err := m.UnmarshalJSON(b); err != nil {
		return "", fmt.Errorf("the snapshot %s is not a session record: %v", path, err)
	}
	if m.Generation == "" {
		return "", fmt.Errorf("the snapshot %s names no generation: it cannot tell which daemon is meant", path)
	}
	return m.Generation, nil
}
