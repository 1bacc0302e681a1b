// Package daemon tests what the built pty-daemon links: packages that cost
// every session memory stay out of it. The tests drive the built binaries
// (internal/testutil BinDir).
package daemon
