package layout

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/fsx"
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
	Killed         bool                       `json:"killed,omitempty"`
	ExitedAt       string                     `json:"exitedAt,omitempty"`
	LastLines      []string                   `json:"lastLines,omitempty"`
	Tags           map[string]string          `json:"tags,omitempty"`
	DisplayName    *string                    `json:"displayName,omitempty"`
	Rows           int                        `json:"rows,omitempty"`
	Cols           int                        `json:"cols,omitempty"`
	Scrollback     *int                       `json:"scrollback,omitempty"`
	Ephemeral      bool                       `json:"ephemeral,omitempty"`
	IsolateEnv     bool                       `json:"isolateEnv,omitempty"`
	ExtraEnv       map[string]string          `json:"extraEnv,omitempty"`
	UnsetEnv       []string                   `json:"unsetEnv,omitempty"`
	Env            map[string]string          `json:"env,omitempty"`
	Generation     string                     `json:"generation,omitempty"`
	DaemonPid      int                        `json:"daemonPid,omitempty"`
	LastAttachAt   string                     `json:"lastAttachAt,omitempty"`
	LastOutputAt   string                     `json:"lastOutputAt,omitempty"`
	Activity       []string                   `json:"activity,omitempty"`
	Recovery       json.RawMessage            `json:"recovery,omitempty"`
	State          map[string]json.RawMessage `json:"state,omitempty"`

	// Extra holds fields this version does not know, verbatim.
	Extra map[string]json.RawMessage `json:"-"`

	// zeroes are the launch fields the record holds with the value that
	// omitempty leaves out (the original writes "ephemeral":false on
	// every record, and "env":{} is an empty exact environment, not
	// none): written back while they still have it, so that a record
	// passes through our writers with the fields it had.
	zeroes zeroFields `json:"-"`
}

// zeroFields is a set of the fields that keep an explicit zero value.
type zeroFields uint8

const (
	zeroEphemeral zeroFields = 1 << iota
	zeroIsolateEnv
	zeroExtraEnv
	zeroUnsetEnv
	zeroEnv
)

// MetadataFields lists the JSON names of Metadata's fields, for docs checks
// and for telling known fields from unknown ones.
func MetadataFields() []string { return slices.Clone(metadataFields[:]) }

// metadataAlias is Metadata without its JSON methods, for encoding/json's
// output in tests, which hold the hand-written codec to it.
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

// Failed reports an exit the session did not ask for: its command exited
// non-zero or died of a signal, and it was not stopped on request (Killed:
// pty kill, or a signal to its daemon). Such a record is kept for
// inspection by default.
func (m *Metadata) Failed() bool { return m.ExitCode != nil && *m.ExitCode != 0 && !m.Killed }

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

// ErrDamaged is matched by the error for a session whose <id>.json exists
// but cannot be used: truncated, garbled, empty, not a JSON object, or
// unreadable. Such a session is still listed, and can still be stopped
// and removed; nothing else can be done with it.
var ErrDamaged = errors.New("session record is damaged")

// DamagedError says why a session's record cannot be used.
type DamagedError struct {
	ID     string
	Reason string // short: "metadata is not valid JSON"
	Err    error  // the underlying error, when there is one

	// denied: the file is there but the caller may not read it. Only
	// listing shows such a record as damaged; a command about the one
	// session says permission denied (PermissionError).
	denied bool
}

func (e *DamagedError) Error() string {
	s := "session " + e.ID + ": record damaged: " + e.Reason
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s + `; it can only be stopped ("pty kill ` + e.ID + `") and removed ("pty rm ` + e.ID + `")`
}

func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }
func (e *DamagedError) Unwrap() error        { return e.Err }

// Damage reasons, shared by every reader so they agree.
const (
	damagedEmpty     = "metadata is empty"
	damagedNotObject = "metadata is not a JSON object"
	damagedNotJSON   = "metadata is not valid JSON"
	damagedUnread    = "metadata cannot be read"
	damagedTooLarge  = "metadata is larger than 128 MiB"
)

// MaxRecordBytes bounds what is read of a record. pty's own limits keep
// one far smaller (the state bag and the tags are bounded); a larger file
// was written by something else, and reading it whole into every `pty
// list` could exhaust memory.
const MaxRecordBytes = 128 << 20

func readRecord(path string) ([]byte, error) {
	return fsx.ReadFileMax(path, syscall.O_NOFOLLOW, MaxRecordBytes)
}

// readMetaErr turns a failure to open or read <id>.json into ErrNotFound
// (no file), a plain error (the root itself is unusable), or a
// DamagedError (the file is there but cannot be read: permissions, a
// symbolic link, a directory, an I/O error).
func readMetaErr(id string, err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errs.Wrap("session "+id, ErrNotFound)
	case errors.Is(err, syscall.ENOTDIR):
		return errs.Wrap("read session "+id, err)
	case errors.Is(err, syscall.ELOOP):
		return &DamagedError{ID: id, Reason: damagedUnread + ": it is a symbolic link"}
	case errors.Is(err, fsx.ErrTooLarge):
		return &DamagedError{ID: id, Reason: damagedTooLarge}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &DamagedError{ID: id, Reason: damagedUnread + ": " + errno.Error(), denied: errno == syscall.EACCES || errno == syscall.EPERM}
	}
	return &DamagedError{ID: id, Reason: damagedUnread, Err: err}
}

// PermissionError says a session's files exist but belong to someone
// else: a registry the caller may list but not read.
type PermissionError struct {
	ID, Root string
	Owner    string // "root", or "uid 1001" when the name is unknown
}

func (e *PermissionError) Error() string {
	return "cannot read session " + strconv.Quote(e.ID) + " in " + e.Root + " (owned by " + e.Owner + "): permission denied; run pty as that user"
}

func (e *PermissionError) Is(target error) bool { return target == os.ErrPermission }

// permissionError is the PermissionError for session id, naming the
// owner of its record.
func permissionError(root, id string) error {
	owner := "another user"
	var st syscall.Stat_t
	if syscall.Lstat(pathsFor(root, id).Meta(), &st) == nil {
		owner = userName(st.Uid)
	}
	return &PermissionError{ID: id, Root: root, Owner: owner}
}

// userName is the login name of uid from /etc/passwd, or "uid N". It
// reads the file itself, as os/user does in the static builds pty is
// installed as (no cgo, so no other name service), because os/user
// brings fmt into pty-peek and pty-list, which link neither.
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			// name:password:uid:gid:...
			name, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
			_, rest, _ = strings.Cut(rest, ":")
			u, _, ok := strings.Cut(rest, ":")
			if ok && u == id && name != "" && name[0] != '#' {
				return name
			}
		}
	}
	return "uid " + id
}

// checkRecordShape refuses what no writer produces but a JSON decoder
// would take: nothing at all, and a top-level value that is not an object
// (null, [], 1), which would read as a session with no command.
func checkRecordShape(id string, b []byte) error {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return nil
		}
		return &DamagedError{ID: id, Reason: damagedNotObject}
	}
	return &DamagedError{ID: id, Reason: damagedEmpty}
}

// readMetadata reads and parses <id>.json. A record that exists but cannot
// be used gives an error matching ErrDamaged.
func readMetadata(root, id string) (*Metadata, error) {
	m, _, err := readMetadataBytes(root, id)
	return m, err
}

// readMetadataBytes is ReadMetadata that also returns the file as read.
func readMetadataBytes(root, id string) (*Metadata, []byte, error) {
	b, err := readRecord(pathsFor(root, id).Meta())
	if err != nil {
		return nil, nil, readMetaErr(id, err)
	}
	if err := checkRecordShape(id, b); err != nil {
		return nil, nil, err
	}
	var m Metadata
	if err := m.decodeJSON(b); err != nil {
		return nil, nil, &DamagedError{ID: id, Reason: damagedNotJSON, Err: err}
	}
	return &m, b, nil
}

// WriteMetadataNoSync writes <id>.json atomically, pretty-printed like the
// original, without waiting for the disk (see fsx.WriteFileAtomicNoSync): for
// a session's creation, where the daemon reports ready first and calls
// fsx.SyncFile on the metadata right after. It does not lock; every other
// change goes through Update.
func WriteMetadataNoSync(root, id string, m *Metadata) error {
	return writeMetadata(root, id, m, false)
}

// metadataIndentDepth is how many levels of a record are indented; deeper
// values (inside state, recovery or unknown fields) are written compact,
// so a record's size stays linear in its content however deep a value
// nests. Every field pty itself writes is within it.
const metadataIndentDepth = 8

func writeMetadata(root, id string, m *Metadata, sync bool) error {
	compact, err := m.appendJSON(nil)
	var b []byte
	if err == nil {
		b, err = jsonlite.AppendIndentMax(make([]byte, 0, 2*len(compact)+1), compact, "", "  ", metadataIndentDepth)
	}
	if err != nil {
		return errs.Wrap("encode session "+id, err)
	}
	b = append(b, '\n')
	if !sync {
		return fsx.WriteFileAtomicNoSync(pathsFor(root, id).Meta(), b, 0o600)
	}
	return fsx.WriteFileAtomic(pathsFor(root, id).Meta(), b, 0o600)
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
