package layout

import (
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
)

// Files in the root are opened without following symbolic links: a link
// planted as <id>.events.jsonl or <id>.json would otherwise make pty read
// or append to whatever it points at, with the rights of whoever runs
// pty. The primitives live in internal/fsx; their errors are layout's.

// ErrSymlink is matched by errors for a file in the root that is a
// symbolic link.
var ErrSymlink = fsx.ErrSymlink

// ErrNotRegular is matched by errors for a file in the root that should be
// a regular file and is a FIFO, a device or a socket.
var ErrNotRegular = fsx.ErrNotRegular

// ErrNotSocket is matched by errors for a session socket path that is
// not a socket of the registry's owner.
var ErrNotSocket = fsx.ErrNotSocket

// ErrLockBusy is returned when a lock is held by a live process and the
// caller's wait ran out.
var ErrLockBusy = fsx.ErrLockBusy

// acquireLock takes a lock in a root that passes rootdir.CheckPerms.
func acquireLock(path string, wait time.Duration) (*fsx.Lock, error) {
	return fsx.AcquireLock(path, wait, rootdir.CheckPerms)
}
