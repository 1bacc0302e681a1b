// Package state tests pty state, pty rename and pty metadata end to end.
// The tests drive the built binaries (internal/testutil BinDir).
package state
