// Package evidence tests pty evidence end to end: the built binaries
// (internal/testutil BinDir) against real daemons and their records.
package evidence
