// Package activity tests the activity markers end to end: a session that
// rings the bell or sends a notification while nobody watches it shows
// [bell] or [notified] in pty list, the picker and pty web's list, until
// someone attaches. The tests drive the built binaries (internal/testutil
// BinDir), with tmux as the user's terminal.
package activity
