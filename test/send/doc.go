// Package send tests pty send end to end: keys as the exact bytes a
// program's modes ask for, text and pastes, delays, and input checked
// before anything is sent. The tests drive the built binaries
// (internal/testutil BinDir).
package send
