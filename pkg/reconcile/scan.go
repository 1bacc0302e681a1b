package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ptyorg/pty/pkg/layout"
)

// entry is one session as the pass first saw it. Every later action
// compares the session under its locks with this.
type entry struct {
	id string
	// meta has what the decisions read. It is decoded without keeping
	// unknown fields (one JSON pass instead of two, for every session);
	// raw is the file as read, decoded in full only for sessions gc acts
	// on.
	meta  *layout.Metadata
	raw   []byte
	fullM *layout.Metadata
	alive bool // the daemon process is alive
	pid   int  // the daemon's pid, from the pid file (0 if none)
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
func (e *entry) full() *layout.Metadata {
	if e.fullM == nil {
		var m layout.Metadata
		if err := json.Unmarshal(e.raw, &m); err != nil {
			m = *e.meta // cannot happen: it parsed once already
		}
		e.fullM = &m
	}
	return e.fullM
}

func (e *entry) fingerprint() []byte { return fingerprint(e.full()) }

func (e *entry) tag(k string) string { return e.meta.Tags[k] }

func (e *entry) permanent() bool { return e.tag(TagStrategy) == StrategyPermanent }

type snapshot struct {
	ids      []string // sessions with valid metadata, sorted
	sessions map[string]*entry
	// files is every directory entry name, for the debris step.
	files []os.DirEntry
	// invalid holds ids whose <id>.json exists but does not parse.
	invalid map[string]bool
}

func scan(root string) (*snapshot, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &snapshot{sessions: map[string]*entry{}, invalid: map[string]bool{}}, nil
		}
		return nil, fmt.Errorf("read pty root %s: %w", root, err)
	}
	s := &snapshot{sessions: map[string]*entry{}, invalid: map[string]bool{}, files: ents}
	var ids []string
	for _, de := range ents {
		if id := layout.IDFromName(de.Name(), layout.SuffixMeta); id != "" {
			ids = append(ids, id)
		}
	}
	// Reading a session is a handful of small syscalls and a JSON decode;
	// several readers at once hide the latency of a slow or busy disk, so
	// a quiet pass over a thousand sessions stays well under 100 ms.
	type result struct {
		e       *entry
		invalid bool
	}
	results := make([]result, len(ids))
	var wg sync.WaitGroup
	next := make(chan int)
	workers := min(len(ids), 2*runtime.GOMAXPROCS(0))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 16<<10)
			for i := range next {
				id := ids[i]
				b, err := readRaw(layout.PathsFor(root, id).Meta(), buf)
				if err != nil {
					continue
				}
				buf = b
				var pm plainMeta
				if err := json.Unmarshal(b, &pm); err != nil {
					results[i].invalid = true
					continue
				}
				alive, pid := layout.At(root).DaemonAlive(id, pm.Generation)
				if other, _ := layout.At(root).DaemonAlive(id, ""); !alive && other {
					// Another generation's daemon holds the id (the
					// record is being replaced): not this pass's to
					// touch, as pty rm refuses it.
					continue
				}
				raw := append([]byte(nil), b...)
				results[i].e = &entry{id: id, meta: (*layout.Metadata)(&pm), raw: raw, alive: alive, pid: pid}
			}
		}()
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range results {
		switch {
		case r.e != nil:
			s.sessions[ids[i]] = r.e
			s.ids = append(s.ids, ids[i])
		case r.invalid:
			s.invalid[ids[i]] = true
		}
	}
	sort.Strings(s.ids)
	return s, nil
}

// plainMeta decodes like layout.Metadata without its UnmarshalJSON, so
// unknown fields are skipped rather than collected in a second pass.
type plainMeta layout.Metadata

// readMeta is Registry.Metadata keeping the two failure kinds apart:
// os.ErrNotExist (nothing there, perhaps removed meanwhile) versus a file
// that does not parse (debris, or a hand edit gone wrong).
func readMeta(root, id string) (*layout.Metadata, error) {
	buf := make([]byte, 0, 16<<10)
	return readMetaBuf(root, id, &buf)
}

// readMetaBuf reads with a reusable buffer: a scan does this for every
// session.
func readMetaBuf(root, id string, buf *[]byte) (*layout.Metadata, error) {
	b, err := readRaw(layout.PathsFor(root, id).Meta(), *buf)
	if err != nil {
		return nil, err
	}
	*buf = b
	var m layout.Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("session %s: metadata is not valid JSON: %w", id, err)
	}
	return &m, nil
}

// fingerprint is what "the same session, unedited" means: every field but
// lastOutputAt, which a live daemon rewrites as its screen changes. The
// generation changes when the session is replaced; tags, exit fields and
// lastAttachAt change when someone edits, exits or attaches. Records from
// writers without a generation compare as whole JSON, as upstream does.
func fingerprint(m *layout.Metadata) []byte {
	c := *m
	c.LastOutputAt = ""
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

// truthy reads a boolean tag the way the daemon's reap policy does: any
// value except false/0/no/off (and empty) is true.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "0", "no", "off":
		return false
	}
	return true
}

// falsy reports an explicit false/0/no/off.
func falsy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "false", "0", "no", "off":
		return true
	}
	return false
}
