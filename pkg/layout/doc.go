// Package layout is the public core of pty's on-disk registry: where the root
// is, what a session id and display name may be, which files a session owns,
// the metadata and event formats, atomic writes, locks, and the derived
// status of a session.
//
// Every pty binary and any third-party Go plugin imports this package, so it
// stays small and free of daemon or terminal code. The file names and JSON
// fields match the original TypeScript pty so that both implementations can
// share one registry; docs/disk-layout.md is the contract.
//
// Reading the registry never changes it: listing, resolving a reference and
// deriving status create no files and remove none.
package layout
