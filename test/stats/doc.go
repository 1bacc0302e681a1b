// Package stats tests pty stats end to end. The tests drive the built
// binaries (internal/testutil BinDir).
package stats
