// Package switchtest tests moving between sessions without detaching
// (pty switch, pty attach and the picker run inside a session) and the
// terminal's title while attached, end to end: the built binaries
// (internal/testutil BinDir) in tmux panes that stand in for the user's
// terminals.
package switchtest
