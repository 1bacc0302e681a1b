//go:build !linux && !darwin

package daemon

import (
	"errors"
	"os"
	"syscall"

	"github.com/ptyorg/pty/pkg/proto"
)

func becomeSubreaper() {}

// peerUID: no portable peer-credential call here; the socket's 0600 mode
// is the only check.
func peerUID(c syscall.Conn) (int, error) { return os.Getuid(), nil }

func resourcesOf(pid int) *proto.Resources { return nil }

// cloexecFrom has no one-call form here; keepDescriptorsFromChild lists
// the descriptors instead.
func cloexecFrom(int) error { return errors.ErrUnsupported }
