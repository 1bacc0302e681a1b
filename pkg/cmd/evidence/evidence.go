// Package evidence is "pty evidence": for a supervisor (an agent
// launcher), read how one exact generation of a session ended, and remove
// that generation once the evidence is consumed, without racing gc or a
// replacement. cmd/pty-evidence only parses the command line and calls
// Run.
package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/cli"
	"github.com/ptyorg/pty/pkg/layout"
)

const usage = `pty evidence snapshot --id ID
       pty evidence remove --id ID --expected-generation GEN`

// lockWait bounds the wait for a session's locks: their holders keep them
// for a read and a write, so a lock still held after this is reported as
// busy (a semantic outcome the caller retries) rather than waited out.
const lockWait = 2 * time.Second

// Options are evidence's flags and arguments.
type Options struct {
	ID                 string   // --id ID, exact
	ExpectedGeneration string   // --expected-generation GEN (remove)
	Args               []string // snapshot | remove
}

// Command declares evidence's flags, filling o.
func Command(o *Options) *cli.Command {
	c := cli.NewCommand("evidence", usage)
	c.Long = `Read the exit evidence of one exact session generation, or remove that
generation after the caller has durably consumed it. Each prints one tagged
JSON document on stdout. ID must be the session's exact id (display names are
not resolved).

snapshot prints
  {"_tag":"snapshot","snapshot":{"name":ID,"generation":GEN,
    "status":"exited"|"vanished","exitCode":N|null,"stream":"combined",
    "tail":{"_tag":"present","lastLines":[...]}|{"_tag":"unavailable"}}}
or {"_tag":"unavailable","reason":R}, R one of missing (no record), running
(its daemon is alive, also while it lingers after the exit), busy (its
locks are held: retry), generation-unavailable (a record without a
generation) and invalid-metadata (a damaged record).

remove --expected-generation GEN removes the session's files only if its
record is still of generation GEN and it has ended with its daemon gone,
and prints {"_tag":T}, T one of removed, missing, generation-mismatch,
not-terminal, invalid-metadata and busy.

These outcomes exit 0. Wrong arguments exit 1 with nothing on stdout.

Examples:
  pty evidence snapshot --id k3x9mz2a
  pty evidence remove --id k3x9mz2a --expected-generation 7f44b35e`
	c.Flags.StringVar(&o.ID, "id", "", "the session's exact `ID`")
	c.Flags.StringVar(&o.ExpectedGeneration, "expected-generation", "", "remove only this `GEN` (from a snapshot)")
	c.Values("id", cli.ValueRef)
	return c
}

// Snapshot is the evidence of one ended generation.
type Snapshot struct {
	Name       string `json:"name"`
	Generation string `json:"generation"`
	Status     string `json:"status"`   // exited or vanished
	ExitCode   *int   `json:"exitCode"` // null when vanished
	Stream     string `json:"stream"`   // always combined: the terminal's one stream
	Tail       Tail   `json:"tail"`
}

// Tail is the session's last lines as its daemon recorded them at exit.
type Tail struct {
	Tag       string   // present or unavailable
	LastLines []string // with present, even when empty
}

// MarshalJSON writes lastLines with present only, and then always: an
// empty tail is evidence too.
func (t Tail) MarshalJSON() ([]byte, error) {
	if t.Tag != "present" {
		return json.Marshal(struct {
			Tag string `json:"_tag"`
		}{t.Tag})
	}
	lines := t.LastLines
	if lines == nil {
		lines = []string{}
	}
	return json.Marshal(struct {
		Tag       string   `json:"_tag"`
		LastLines []string `json:"lastLines"`
	}{t.Tag, lines})
}

// Result is snapshot's output.
type Result struct {
	Tag      string    `json:"_tag"` // snapshot or unavailable
	Snapshot *Snapshot `json:"snapshot,omitempty"`
	Reason   string    `json:"reason,omitempty"`
}

// Run does the operation o.Args names.
func Run(o Options, cio cli.IO) error {
	if len(o.Args) == 0 {
		return errors.New(`expected the operation "snapshot" or "remove": pty evidence snapshot --id ID, or pty evidence remove --id ID --expected-generation GEN`)
	}
	op := o.Args[0]
	if op != "snapshot" && op != "remove" {
		return fmt.Errorf("unknown operation %q: expected \"snapshot\" or \"remove\" (see 'pty evidence --help')", op)
	}
	if len(o.Args) > 1 {
		return fmt.Errorf("unexpected argument %q: the session is given with --id", o.Args[1])
	}
	if o.ID == "" {
		return fmt.Errorf("--id is required: pty evidence %s --id ID", op)
	}
	if err := layout.ValidateID(o.ID); err != nil {
		return err
	}
	r := layout.At(cio.Root)
	var out any
	switch op {
	case "snapshot":
		if o.ExpectedGeneration != "" {
			return errors.New("--expected-generation is for remove only: pty evidence snapshot --id ID")
		}
		res, err := snapshot(r, o.ID)
		if err != nil {
			return err
		}
		out = res
	case "remove":
		if o.ExpectedGeneration == "" {
			return errors.New("--expected-generation is required: give the generation of the snapshot you consumed, as in pty evidence remove --id ID --expected-generation GEN")
		}
		if err := rootdir.CheckWritable(cio.Root); err != nil {
			return err
		}
		tag, err := remove(r, o.ID, o.ExpectedGeneration)
		if err != nil {
			return err
		}
		out = struct {
			Tag string `json:"_tag"`
		}{tag}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(cio.Out, string(b))
	return err
}

// snapshot reads session id under its locks, so that no replacement
// publishes a new generation between reading the record and judging its
// daemon.
func snapshot(r *layout.Registry, id string) (Result, error) {
	if _, reason, _ := load(r, id); reason == "missing" {
		// Nothing to lock: taking the locks would leave lock files for
		// an id that has none, in a root that may not exist.
		return Result{Tag: "unavailable", Reason: reason}, nil
	}
	var res Result
	err := r.Locked(id, lockWait, func() error {
		s, reason, err := load(r, id)
		if err != nil || reason != "" {
			res = Result{Tag: "unavailable", Reason: reason}
			return err
		}
		if s.Live {
			res = Result{Tag: "unavailable", Reason: "running"}
			return nil
		}
		snap := &Snapshot{Name: id, Generation: s.Meta.Generation, Status: string(s.Status), Stream: "combined", Tail: Tail{Tag: "unavailable"}}
		if s.Status == layout.Exited && s.Meta.ExitCode != nil {
			c := *s.Meta.ExitCode
			snap.ExitCode = &c
		}
		if s.Meta.LastLines != nil {
			snap.Tail = Tail{Tag: "present", LastLines: s.Meta.LastLines}
		}
		res = Result{Tag: "snapshot", Snapshot: snap}
		return nil
	})
	if errors.Is(err, layout.ErrLockBusy) {
		return Result{Tag: "unavailable", Reason: "busy"}, nil
	}
	return res, err
}

// remove deletes session id's files if it is still of generation gen and
// ended with its daemon gone, checked and done under its locks.
func remove(r *layout.Registry, id, gen string) (string, error) {
	if _, reason, _ := load(r, id); reason == "missing" {
		return reason, nil
	}
	var tag string
	err := r.Locked(id, lockWait, func() error {
		s, reason, err := load(r, id)
		switch {
		case err != nil:
			return err
		case reason == "generation-unavailable":
			tag = "generation-mismatch"
			return nil
		case reason != "":
			tag = reason
			return nil
		case s.Meta.Generation != gen:
			tag = "generation-mismatch"
			return nil
		case s.Live || !s.Status.Gone():
			tag = "not-terminal"
			return nil
		}
		if err := r.Remove(id); err != nil {
			return fmt.Errorf("remove session %s: %w (its record is kept; retry)", id, err)
		}
		tag = "removed"
		return nil
	})
	if errors.Is(err, layout.ErrLockBusy) {
		return "busy", nil
	}
	return tag, err
}

// load reads session id, or says why there is nothing to judge: missing,
// invalid-metadata or generation-unavailable.
func load(r *layout.Registry, id string) (layout.Session, string, error) {
	s, err := r.Load(id)
	switch {
	case errors.Is(err, layout.ErrNotFound):
		return s, "missing", nil
	case err != nil:
		return s, "", err
	case s.Status == layout.Damaged:
		return s, "invalid-metadata", nil
	case s.Meta.Generation == "":
		return s, "generation-unavailable", nil
	}
	return s, "", nil
}
