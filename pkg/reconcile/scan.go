package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/ptyorg/pty/pkg/layout"
)

// entry is one session as the pass first saw it. Every later action
// compares the session under its locks with this.
type entry struct {
	id string
	// meta is the record as the pass read it, unknown fields included.
	meta  *layout.Metadata
	alive bool // the daemon process is alive
	pid   int  // the daemon's pid while it is alive (0 if unknown)
}

// status is the session's status as every command sees it
// (layout.StatusOf): an exit on record is exited, even while the daemon
// lingers for its grace period.
func (e *entry) status() layout.Status { return layout.StatusOf(e.meta, e.alive) }

// gone reports a finished session: exited or vanished.
func (e *entry) gone() bool { return e.status().Gone() }

// running reports a live session with no exit recorded.
func (e *entry) running() bool { return e.status() == layout.Running }

// lingering reports an exited session whose daemon is still in its grace
// period: what gc does to its files waits for that daemon to finish.
func (e *entry) lingering() bool { return e.status() == layout.Exiting }

// full is the metadata as the pass read it, unknown fields included.
func (e *entry) full() *layout.Metadata { return e.meta }

func (e *entry) fingerprint() []byte { return fingerprint(e.full()) }

func (e *entry) tag(k string) string { return e.meta.Tags[k] }

func (e *entry) permanent() bool { return layout.Permanent(e.meta.Tags) }

type snapshot struct {
	ids      []string // sessions with valid metadata, sorted
	sessions map[string]*entry
	// files is every directory entry name, for the debris step.
	files []os.DirEntry
	// invalid holds ids whose <id>.json exists but is damaged.
	invalid map[string]bool
}

// scan reads the registry as every command reads it (layout's List: the
// same records, the same liveness check, the same status), and the
// directory's names for the debris step.
func scan(root string) (*snapshot, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &snapshot{sessions: map[string]*entry{}, invalid: map[string]bool{}}, nil
		}
		return nil, fmt.Errorf("read pty root %s: %w", root, err)
	}
	r := layout.At(root)
	all, err := r.List()
	if err != nil {
		return nil, err
	}
	s := &snapshot{sessions: map[string]*entry{}, invalid: map[string]bool{}, files: ents}
	for _, ss := range all {
		switch {
		case ss.Status == layout.Damaged:
			s.invalid[ss.ID] = true
			continue
		case !ss.Live:
			if other, _ := r.DaemonAlive(ss.ID, ""); other {
				// Another generation's daemon holds the id (the
				// record is being replaced): not this pass's to
				// touch, as pty rm refuses it.
				continue
			}
		}
		s.sessions[ss.ID] = &entry{id: ss.ID, meta: ss.Meta, alive: ss.Live, pid: ss.Pid}
		s.ids = append(s.ids, ss.ID)
	}
	return s, nil
}

// readMeta is Registry.Metadata keeping the two failure kinds apart:
// os.ErrNotExist (nothing there, perhaps removed meanwhile) versus a
// record that cannot be used (debris, or a hand edit gone wrong).
func readMeta(root, id string) (*layout.Metadata, error) {
	m, err := layout.At(root).Metadata(id)
	if errors.Is(err, layout.ErrNotFound) {
		return nil, os.ErrNotExist
	}
	return m, err
}

// fingerprint is what "the same session, unedited" means: every field but
// lastOutputAt and activity, which a live daemon rewrites as its screen
// changes. The
// generation changes when the session is replaced; tags, exit fields and
// lastAttachAt change when someone edits, exits or attaches. Records from
// writers without a generation compare as whole JSON, as upstream does.
func fingerprint(m *layout.Metadata) []byte {
	c := *m
	c.LastOutputAt = ""
	c.Activity = nil // the daemon's too: a bell is no edit
	b, err := json.Marshal(c)
	if err != nil {
		return nil
	}
	return b
}

// unchanged re-reads a session (the caller holds its locks) and reports
// whether it is still what the pass saw. It returns the current metadata
// when it is.
func unchanged(root string, e *entry) (*layout.Metadata, bool) {
	m, err := readMeta(root, e.id)
	if err != nil {
		return nil, false
	}
	if !bytes.Equal(fingerprint(m), e.fingerprint()) {
		return m, false
	}
	return m, true
}

// sameGeneration is the weaker check used after gc itself stopped a
// daemon: the daemon wrote its exit fields, so only the identity of the
// session is compared.
func sameGeneration(m *layout.Metadata, e *entry) bool {
	if e.meta.Generation != "" || m.Generation != "" {
		return m.Generation == e.meta.Generation
	}
	return m.CreatedAt == e.meta.CreatedAt && m.Command == e.meta.Command
}
