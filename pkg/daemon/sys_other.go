//go:build !linux && !darwin

package daemon

import (
	"net"
	"os"
)

func becomeSubreaper() {}

// peerUID: no portable peer-credential call here; the socket's 0600 mode
// is the only check.
func peerUID(c *net.UnixConn) (int, error) { return os.Getuid(), nil }

func descendants(pid int) []int { return nil }

func resourcesOf(pid int) *Resources { return nil }
