package layout

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/jsonlite"
)

// Metadata is <id>.json. Field names match the original pty (PUBLIC FORMAT:
// docs/disk-layout.md lists every field, and a test fails when one is
// missing there). Fields this version does not know are kept in Extra and
// written back unchanged, so a newer writer's fields survive our rewrites.
type Metadata struct {
	Command        string                     `json:"command"`
	Args           []string                   `json:"args"`
	DisplayCommand string                     `json:"displayCommand"`
	Cwd            string                     `json:"cwd"`
	CreatedAt      string                     `json:"createdAt"`
	ExitCode       *int                       `json:"exitCode,omitempty"`
	Signal         *int                       `json:"signal,omitempty"`
	ExitedAt       string                     `json:"exitedAt,omitempty"`
	LastLines      []string                   `json:"lastLines,omitempty"`
	Tags           map[string]string          `json:"tags,omitempty"`
	DisplayName    *string                    `json:"displayName,omitempty"`
	Rows           int                        `json:"rows,omitempty"`
	Cols           int                        `json:"cols,omitempty"`
	Ephemeral      bool                       `json:"ephemeral,omitempty"`
	IsolateEnv     bool                       `json:"isolateEnv,omitempty"`
	ExtraEnv       map[string]string          `json:"extraEnv,omitempty"`
	UnsetEnv       []string                   `json:"unsetEnv,omitempty"`
	Env            map[string]string          `json:"env,omitempty"`
	Generation     string                     `json:"generation,omitempty"`
	DaemonPid      int                        `json:"daemonPid,omitempty"`
	LastAttachAt   string                     `json:"lastAttachAt,omitempty"`
	LastOutputAt   string                     `json:"lastOutputAt,omitempty"`
	Recovery       json.RawMessage            `json:"recovery,omitempty"`
	State          map[string]json.RawMessage `json:"state,omitempty"`

	// Extra holds fields this version does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`
}

// MetadataFields lists the JSON names of Metadata's fields, for docs checks
// and for telling known fields from unknown ones.
func MetadataFields() []string { return slices.Clone(metadataFields[:]) }

// metadataAlias is Metadata without its JSON methods, for encoding/json's
// strict decode in readMetadataFast.
type metadataAlias Metadata

// UnmarshalJSON keeps unknown fields in Extra.
func (m *Metadata) UnmarshalJSON(b []byte) error { return m.decodeJSON(b) }

// MarshalJSON writes known fields, then unknown ones in key order.
func (m Metadata) MarshalJSON() ([]byte, error) { return m.appendJSON(nil) }

// Name is what people see: the display name, or the id when there is none.
func (m *Metadata) Name(id string) string {
	if m.DisplayName != nil && *m.DisplayName != "" {
		return *m.DisplayName
	}
	return id
}

// Exited reports whether an exit was recorded.
func (m *Metadata) Exited() bool { return m.ExitedAt != "" || m.ExitCode != nil }

// Tag returns a tag's value.
func (m *Metadata) Tag(k string) (string, bool) {
	v, ok := m.Tags[k]
	return v, ok
}

// Clone returns a deep copy, so a mutation can be compared with the original.
func (m *Metadata) Clone() *Metadata {
	b, err := m.appendJSON(nil)
	if err != nil {
		panic(err) // every field marshals
	}
	var c Metadata
	if err := c.decodeJSON(b); err != nil {
		panic(err)
	}
	return &c
}

// ErrNotFound means the session has no metadata file.
var ErrNotFound = errors.New("session not found")

// ReadMetadata reads and parses <id>.json.
func ReadMetadata(root, id string) (*Metadata, error) {
	b, err := os.ReadFile(PathsFor(root, id).Meta())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Wrap("session "+id, ErrNotFound)
		}
		return nil, errs.Wrap("read session "+id, err)
	}
	var m Metadata
	if err := m.decodeJSON(b); err != nil {
		return nil, errs.Wrap("session "+id+": metadata is not valid JSON", err)
	}
	return &m, nil
}

// WriteMetadata writes <id>.json atomically, pretty-printed like the
// original. It does not lock: read-modify-write goes through UpdateMetadata.
func WriteMetadata(root, id string, m *Metadata) error {
	return writeMetadata(root, id, m, true)
}

// WriteMetadataNoSync is WriteMetadata without waiting for the disk (see
// WriteFileAtomicNoSync): for a session's creation, where the daemon
// reports ready first and calls SyncFile on the metadata right after.
func WriteMetadataNoSync(root, id string, m *Metadata) error {
	return writeMetadata(root, id, m, false)
}

func writeMetadata(root, id string, m *Metadata, sync bool) error {
	compact, err := m.appendJSON(nil)
	var b []byte
	if err == nil {
		b, err = jsonlite.AppendIndent(make([]byte, 0, 2*len(compact)+1), compact, "", "  ")
	}
	if err != nil {
		return errs.Wrap("encode session "+id, err)
	}
	b = append(b, '\n')
	return writeAtomic(PathsFor(root, id).Meta(), b, 0o600, sync)
}

// Now returns the timestamp format used in metadata and events: ISO 8601 in
// UTC with milliseconds, as JavaScript's Date.toISOString writes it.
func Now() string { return FormatTime(time.Now()) }

// FormatTime formats t like Now.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ParseTime parses a metadata timestamp; zero time when empty or invalid.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
