// Package layout is the public core of pty's on-disk registry, the API
// third-party pty-* commands (plugins) build on: where the root is, what
// a session id and display name may be, which files a session owns, the
// metadata and event formats, and the derived status of a session.
//
// A plugin opens the registry with Open or OpenDefault and does
// everything through the Registry it gets: List and Load sessions (each
// with one derived Status), Resolve a reference as pty's commands do,
// read its Events, change its tags, state and display name (SetTags,
// StateSet, SetDisplayName, Update), EmitUser its own events, and
// VerifyDaemon before it signals a pid. pty's own commands do the same,
// so a plugin sees every session as pty list does. docs/plugins.md is the
// guide.
//
// # Stability
//
// Stable (kept compatible across pty releases): Open, OpenDefault, At,
// ResolveRoot, Registry and its methods, Session, Status and its
// constants, Metadata and its methods, Event, NewEvent, the Event*
// constants, MetadataPatch, Paths and its methods, the Suffix* constants,
// the Validate* functions, the Max* limits, the Tag* constants, the Err*
// values and the error types (DamagedError, PermissionError, RefError).
// pkg/eventlog's Follower, which follows a session's events as they are
// appended, is stable too; it lives apart so that the daemon does not
// link fsnotify.
// Everything else exported here is pty's own plumbing, such as
// AppendEventsLocked and WriteMetadataNoSync (the daemon's variants of
// AppendEvents and Update), EnsureRoot, FastFailTags, StatusOf and
// MetaLockWait: usable, but it may change. What lies under them cannot be
// imported: the file primitives (no-follow opens, atomic writes, locks,
// the socket check) are in internal/fsx, the root's checks in
// internal/rootdir, the process probes in internal/proc, and what only
// pty's launcher and daemon use in internal/registry.
//
// Every pty binary and any plugin imports this package, so it stays small
// and free of daemon or terminal code. The file names and JSON fields
// match the original TypeScript pty so that both implementations can
// share one registry; docs/disk-layout.md is the contract.
//
// Reading the registry never changes it: listing, resolving a reference
// and deriving status create no files and remove none.
//
// # The daemon's size rule
//
// The session daemon links this package, and every session keeps one
// resident, so nothing here may use fmt or reflect (encoding/json's
// encoder included) on a path the daemon reaches: events and records are
// encoded by hand (internal/jsonlite), which is why event payloads hold
// plain values only (see AppendEvents). TestDaemonLinksNoHeavyPackages
// (test/daemon) fails when the daemon's binary links either;
// docs/contributing.md says how to find the call that pulled one in.
package layout
