// Package up tests pty up and pty down end to end: sessions started from a
// file and kept in step with it, bad files refused leaving nothing. The
// tests drive the built binaries (internal/testutil BinDir).
package up
