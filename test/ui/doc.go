// Package ui tests the picker (pty with no arguments) end to end in tmux:
// attaching, detaching, restarting, creating sessions and refusals. The
// tests drive the built binaries (internal/testutil BinDir).
package ui
