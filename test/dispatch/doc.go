// Package dispatch tests the pty dispatcher end to end: plugins found on
// PATH and run with their signals, unknown commands, --root anywhere on the
// line, and every subcommand's --help and flag errors. The tests drive the
// built binaries (internal/testutil BinDir).
package dispatch
