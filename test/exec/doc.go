// Package exec tests pty exec end to end: the built binaries
// (internal/testutil BinDir), real daemons, and what restart and gc run
// after an exec.
package exec
