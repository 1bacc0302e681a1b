// Package events tests pty events and pty emit end to end: following one
// session or all, waiting for an event, the recent ones, and bad input
// refused. The tests drive the built binaries (internal/testutil BinDir).
package events
