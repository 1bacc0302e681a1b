// Package remote tests pty remote-serve end to end: the request lines of
// the original pty's remote protocol against real daemons, over stdio and
// over --socket. The tests drive the built binaries (internal/testutil
// BinDir).
package remote
