// Package rm tests pty rm end to end: running sessions refused, stopped
// ones removed, and kill, rm and run again on one id. The tests drive the
// built binaries (internal/testutil BinDir).
package rm
