// Package attach tests pty attach end to end in real terminals: typing,
// detaching and the detach key, sizes of several writers, floods redrawn
// instead of forwarded, the history written into the terminal, ended
// sessions offered a restart, and the terminal left sane however attach
// ends. The tests drive the built binaries (internal/testutil BinDir).
package attach
