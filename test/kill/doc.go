// Package kill tests pty kill end to end: the hangup a shell saves its
// history on, the escalation to SIGKILL, the whole process tree, and never
// a process that is not the session's (a reused pid, another session's
// daemon). The tests drive the built binaries (internal/testutil BinDir).
package kill
