// Package recover tests, on the built binaries and real daemons, that a
// running session whose socket, pid file, record or whole root is deleted
// comes back (by itself, or with pty recover) as the same process with its
// output whole, and that nothing else is written over or signalled.
package recover
