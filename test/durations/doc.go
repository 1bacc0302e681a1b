// Package durations checks that every duration a pty command takes (flags,
// tags, variables) reads the same forms, "5" and "5s" alike, and refuses a
// bad one with the same words. The tests drive the built binaries
// (internal/testutil BinDir).
package durations
