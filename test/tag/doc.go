// Package tag tests pty tag and pty tag-multi end to end: listing, setting
// and removing tags, concurrent writers losing nothing. The tests drive the
// built binaries (internal/testutil BinDir).
package tag
