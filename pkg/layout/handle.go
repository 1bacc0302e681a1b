package layout

import (
	"encoding/json"
	"os"
	"time"
)

// A Registry is the session registry in one root directory, as an
// os.Root is bound to one directory: every method reads or changes the
// files of that root only. It is the way to use the registry, for pty's
// own commands and for plugins alike:
//
//	r, err := layout.OpenDefault() // $PTY_ROOT, or the default root
//	sessions, err := r.List()      // every session, with its status
//	s, err := r.Resolve("web")     // an id, a display name, or a unique prefix
//	if s.Status == layout.Running { ... }
//	_, _, err = r.SetTags(s.ID, map[string]string{"team": "a"}, nil)
//
// Status is derived once, by one rule, for every caller (see Status); a
// pid is trusted only once it proves to be the session's daemon
// (VerifyDaemon), never from a pid file alone.
//
// A Registry holds no open files and no cache: each call reads the disk
// afresh, so a handle may be kept for the life of a process and shared
// between goroutines. Opening one creates nothing; a root that does not
// exist yet is an empty registry for reading.
type Registry struct {
	root string
}

// Open returns the registry in the directory root, which must be an
// absolute path short enough for its sockets (checkRootLen). It does not
// create or check the directory (EnsureRoot does, for writers).
func Open(root string) (*Registry, error) {
	if err := checkRootLen(root); err != nil {
		return nil, err
	}
	return &Registry{root: root}, nil
}

// OpenDefault opens the registry the environment names: $PTY_ROOT, then
// the deprecated $PTY_SESSION_DIR, then $XDG_STATE_HOME/pty, then
// ~/.local/state/pty (ResolveRoot). Warnings about deprecated variables
// are not printed; call ResolveRoot to show them.
func OpenDefault() (*Registry, error) {
	env, err := ResolveRoot(os.Getenv)
	if err != nil {
		return nil, err
	}
	return Open(env.Dir)
}

// Root is the directory the registry is bound to.
func (r *Registry) Root() string { return r.root }

// Paths are the files of session id.
func (r *Registry) Paths(id string) Paths { return pathsFor(r.root, id) }

// IDs lists the ids that have a record, sorted.
func (r *Registry) IDs() ([]string, error) { return idsWith(r.root, SuffixMeta) }

// LogIDs lists the ids that have an event log, sorted: a session's log
// may outlive its record for a moment (pty events --all follows them).
func (r *Registry) LogIDs() ([]string, error) { return idsWith(r.root, SuffixEvents) }

// List reads every session, sorted by id, each with its status. A damaged
// record is listed (status Damaged); a session removed while the registry
// is read is left out. One read of the directory serves the whole list.
func (r *Registry) List() ([]Session, error) { return listFast(r.root) }

// Load reads one session by its exact id: ErrNotFound when it has no
// record; a damaged record gives a Session whose status is Damaged.
func (r *Registry) Load(id string) (Session, error) { return load(r.root, id) }

// Resolve finds the session a user means by ref: an exact id wins, then
// an exact display name, then a unique prefix of an id, then a unique
// prefix of a display name. A *RefError says none or several matched.
func (r *Registry) Resolve(ref string) (Session, error) { return resolve(r.root, ref) }

// Metadata reads session id's record as it is on disk. A damaged record
// is a *DamagedError (errors.Is ErrDamaged).
func (r *Registry) Metadata(id string) (*Metadata, error) { return readMetadata(r.root, id) }

// Update changes session id's record under its lock: fn edits m and
// returns the events that describe the change, appended to the session's
// event log in the same step. An error from fn (ErrNoChange: nothing to
// do) leaves the record as it was.
func (r *Registry) Update(id string, fn func(m *Metadata) ([]Event, error)) (*Metadata, error) {
	return updateRecord(r.root, id, fn)
}

// Patch applies a metadata patch (see MetadataPatch) as one Update.
func (r *Registry) Patch(id string, p MetadataPatch) (changed bool, m *Metadata, err error) {
	return patchMetadata(r.root, id, p)
}

// SetTags sets and removes tags of session id, validated, logging a
// tags_change event when anything changed.
func (r *Registry) SetTags(id string, set map[string]string, rm []string) (changed bool, m *Metadata, err error) {
	return setTags(r.root, id, set, rm)
}

// SetTagsIf is SetTags when cond, asked of the tags under the lock, holds;
// ErrConditionFailed when it does not.
func (r *Registry) SetTagsIf(id string, cond func(tags map[string]string) bool, set map[string]string, rm []string) (changed bool, m *Metadata, err error) {
	return setTagsIf(r.root, id, cond, set, rm)
}

// SetDisplayName sets (nil: clears) session id's display name, refusing
// one another session has.
func (r *Registry) SetDisplayName(id string, name *string) (changed bool, m *Metadata, err error) {
	return setDisplayName(r.root, id, name)
}

// StateSet sets key in session id's state bag to a JSON value.
func (r *Registry) StateSet(id, key string, value json.RawMessage) (changed bool, m *Metadata, err error) {
	return stateSet(r.root, id, key, value)
}

// StateDelete removes key from session id's state bag.
func (r *Registry) StateDelete(id, key string) (changed bool, m *Metadata, err error) {
	return stateDelete(r.root, id, key)
}

// Events reads session id's event log, oldest first.
func (r *Registry) Events(id string) ([]Event, error) { return readEvents(r.root, id) }

// AppendEvents appends events to session id's log under its lock.
func (r *Registry) AppendEvents(id string, evs ...Event) error {
	return appendEventsTo(r.root, id, evs...)
}

// EmitUser appends a user.* event (a plugin's own event) to session id's
// log.
func (r *Registry) EmitUser(id, typ string, data json.RawMessage, text *string) error {
	return emitUser(r.root, id, typ, data, text)
}

// Locked runs fn holding session id's metadata lock, waiting at most wait
// for it (ErrLockBusy past that).
func (r *Registry) Locked(id string, wait time.Duration, fn func() error) error {
	return locked(r.root, id, wait, fn)
}

// Pid is the pid in session id's pid file, or 0. It says only which pid
// the daemon had: ask VerifyDaemon before trusting it.
func (r *Registry) Pid(id string) int { return readPid(r.root, id) }

// VerifyDaemon reports whether pid is, provably, the daemon of session id
// (of generation gen, when gen is not ""): anything about to signal a pid
// from a pid file or a record asks this first, since a dead daemon's pid
// may since belong to any process.
func (r *Registry) VerifyDaemon(pid int, id, gen string) bool {
	return isSessionDaemon(pid, r.root, id, gen)
}

// Remove deletes session id's files (record, events, socket, pid file,
// launch claim); missing files are fine. It does not stop a daemon: stop
// the session first.
func (r *Registry) Remove(id string) error { return removeFiles(r.root, id) }

// At binds a Registry to root without Open's check, for a root already
// checked (ResolveRoot's, or one pty's commands were given).
func At(root string) *Registry { return &Registry{root: root} }

// DaemonAlive reports whether session id's daemon lives, and its pid (0
// when it answers on its socket but left no pid file): the one liveness
// check every status comes from. A daemon counts only once it proves to
// be the session's (see VerifyDaemon) and, when gen is not "", of that
// generation: a live daemon of another generation (a replacement
// starting) is not that record's. gen "" asks whether the id is taken.
func (r *Registry) DaemonAlive(id, gen string) (bool, int) { return daemonAliveGen(r.root, id, gen) }
