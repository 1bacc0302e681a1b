// Command pty-daemon is the per-session process that holds a session's
// pseudo-terminal. spawn starts it as "pty-daemon <id> <generation>
// <root>" (registry.DaemonArgs: ps shows which session it serves, and a pid
// is told to be a session's daemon by them) with its launch config on fd 3, a readiness
// pipe on fd 4 and the session's socket on fd 5, which its launcher binds
// and publishes before it sends the config; it is not meant to be run by
// hand.
//
// One runs per session, so it is kept small: it must not link fmt,
// reflection-based encoding/json, reflect.Value, crypto/ or os/exec
// (test/daemon/link_test.go checks the built binary; docs/contributing.md
// says why).
package main

import (
	"os"

	"github.com/ptyorg/pty/pkg/daemon"
)

func main() {
	if len(os.Args) != 4 || os.Args[1] == "--help" || os.Args[1] == "-h" {
		os.Stderr.WriteString("pty-daemon holds one session's terminal; it is started by 'pty run', not by hand.\n")
		os.Exit(1)
	}
	os.Exit(daemon.Main(os.Args[1:]))
}
