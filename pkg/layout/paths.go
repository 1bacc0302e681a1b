package layout

import (
	"github.com/ptyorg/pty/internal/fsx"
	"path/filepath"
	"strings"
)

// File suffixes of a session's files under the root.
const (
	SuffixMeta       = ".json"
	SuffixEvents     = ".events.jsonl"
	SuffixSock       = ".sock"
	SuffixPid        = ".pid"
	SuffixLock       = ".lock"
	SuffixEventsLock = ".events.lock"
	// The daemon's error log and its previous part (internal/errlog).
	// Not ".log": the root holds gc.log, which session "gc" would own.
	SuffixDaemonLog    = ".daemon.log"
	SuffixDaemonLogOld = ".daemon.log.1"
)

// Paths names the files of one session. It is a value: computing it touches
// nothing on disk.
type Paths struct {
	Root, ID string
}

// pathsFor returns the file names of session id under root.
func pathsFor(root, id string) Paths { return Paths{Root: root, ID: id} }

func (p Paths) file(suffix string) string { return filepath.Join(p.Root, p.ID+suffix) }

func (p Paths) Meta() string       { return p.file(SuffixMeta) }
func (p Paths) Events() string     { return p.file(SuffixEvents) }
func (p Paths) Sock() string       { return p.file(SuffixSock) }
func (p Paths) Pid() string        { return p.file(SuffixPid) }
func (p Paths) Lock() string       { return p.file(SuffixLock) }
func (p Paths) EventsLock() string { return p.file(SuffixEventsLock) }
func (p Paths) DaemonLog() string  { return p.file(SuffixDaemonLog) }

func (p Paths) DaemonLogOld() string { return p.file(SuffixDaemonLogOld) }

// All lists every file a session may own, for removal.
func (p Paths) All() []string {
	return []string{p.Sock(), p.Pid(), p.Meta(), p.Events(), p.Launch(), p.DaemonLog(), p.DaemonLogOld()}
}

// IDFromName returns the session id of a directory entry "<id><suffix>"
// (suffix one of the Suffix* constants: SuffixMeta for records,
// SuffixEvents for event logs), or "" when name is not one, temporary
// files of an atomic write included.
func IDFromName(name, suffix string) string {
	id, ok := strings.CutSuffix(name, suffix)
	if !ok || fsx.IsTemp(name) || ValidateID(id) != nil {
		return ""
	}
	return id
}
