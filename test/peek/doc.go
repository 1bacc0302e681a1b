// Package peek tests pty peek end to end: the screen, the scrollback,
// following and waiting for text, and daemons that are stopped, unreachable
// or another user's. The tests drive the built binaries (internal/testutil
// BinDir).
package peek
