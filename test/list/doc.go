// Package list tests pty list end to end: what it shows, escaped, coloured
// only on a terminal, and that listing never changes the registry. The
// tests drive the built binaries (internal/testutil BinDir).
package list
