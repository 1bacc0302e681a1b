// Package run tests pty run end to end: starting sessions detached or
// attached, their environment, exit codes and traces, claims of an id raced
// or left by a killed run, zombies and process trees, and the scrollback's
// bounds. The tests drive the built binaries (internal/testutil BinDir).
package run
