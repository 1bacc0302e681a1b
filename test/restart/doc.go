// Package restart tests pty restart end to end: a session started again
// with its settings, running or stopped, asked on a terminal, agents
// refused. The tests drive the built binaries (internal/testutil BinDir).
package restart
