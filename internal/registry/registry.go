// Package registry is what pty's own commands and session daemon need of
// the registry beyond the public API of pkg/layout, which third-party
// plugins build on: how a daemon is started (its arguments) and the launch
// claim a launcher holds while it creates a session. Plugins neither start
// daemons nor create sessions (they run pty run for that), so none of this
// is promised to them, and it may change with pty.
//
// Like pkg/layout it is linked into the session daemon, so it must not use
// fmt or reflect (cmd/pty-daemon's link test enforces it).
package registry

import (
	"encoding/hex"
	"errors"
	"hash/fnv"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/fsx"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/layout"
)

// DaemonArgs is the argv a session daemon runs with: its proof of
// identity, which layout reads back from /proc/<pid>/cmdline
// (layout.Registry.VerifyDaemon).
func DaemonArgs(root, id, generation string) []string {
	return []string{layout.DaemonName, id, generation, root}
}

// WriteLaunchClaim records that this process is creating generation gen
// of session id (layout.SuffixLaunch). The caller holds the session's
// locks.
func WriteLaunchClaim(root, id, gen string) error {
	return fsx.WriteFileAtomicNoSync(layout.At(root).Paths(id).Launch(), []byte(strconv.Itoa(os.Getpid())+" "+gen+"\n"), 0o600)
}

// ReadLaunchClaim reports whether session id has a launch claim, and the
// generation it names ("" when its content is not a claim's).
func ReadLaunchClaim(root, id string) (gen string, ok bool) {
	f, err := fsx.OpenNoFollow(layout.At(root).Paths(id).Launch(), os.O_RDONLY, 0)
	if err != nil {
		// A link is nobody's claim but is in the way all the same.
		return "", errors.Is(err, layout.ErrSymlink)
	}
	defer f.Close()
	b := make([]byte, 128)
	n, _ := f.Read(b)
	fields := strings.Fields(string(b[:n]))
	if len(fields) != 2 {
		return "", true
	}
	return fields[1], true
}

// DropLaunchClaim removes session id's launch claim if it names
// generation gen.
func DropLaunchClaim(root, id, gen string) {
	if g, ok := ReadLaunchClaim(root, id); ok && g == gen {
		os.Remove(layout.At(root).Paths(id).Launch())
	}
}

const idAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// RandomID returns 8 characters from an alphabet without look-alikes
// (no 0/o, 1/l/i), so ids can be read aloud and typed. An id is a name,
// not a secret, and claiming one checks it is free: math/rand's
// generator (ChaCha8, seeded by the runtime from the kernel) is enough and
// keeps crypto/rand out of the launcher. The ids pass layout.ValidateID.
func RandomID() string {
	var b [8]byte
	for i := range b {
		b[i] = idAlphabet[mrand.IntN(len(idAlphabet))]
	}
	return string(b[:])
}

// NameLockPrefix starts the names of display-name locks (NameLock).
const NameLockPrefix = ".name-"

// NameLockWait is how long a find-or-create by name waits for another one
// of the same name: the holder may be stopping a session (lifecycle's
// DaemonWait) and starting it again (spawn's ReadyTimeout).
const NameLockWait = 25 * time.Second

// NameLock takes the lock of display name name in root, which a
// find-or-create by name (pty run -a --name) holds from its look for the
// name until the session it found or started is in the registry, and a
// relaunch holds while the record of the name it starts again is away, so
// that two of them never both find the name free. Display names are not
// unique otherwise: plain starts and renames take no lock.
//
// The file is <root>/.name-<32 hex digits>, a 128-bit FNV-1a hash of the
// name (names whose hashes collide only share a lock). It starts with '.',
// which no session id does, so neither this pty nor the original takes it
// for part of a session; gc removes a stale one as debris.
func NameLock(root, name string, wait time.Duration) (*fsx.Lock, error) {
	h := fnv.New128a()
	h.Write([]byte(name))
	return fsx.AcquireLock(filepath.Join(root, NameLockPrefix+hex.EncodeToString(h.Sum(nil))), wait, rootdir.CheckPerms)
}
