package ptyfile

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// IdentityLock is the lock file of a pty.toml session identity (the
// file's absolute path and the session's key) in root. Whoever looks at
// what runs of that identity and then starts or stops it holds it across
// both: `pty up`, `pty down` and gc's respawn, so that none of them acts
// on what another is changing. The name starts with '.', which no session
// id does, and ends in no suffix of a session's files, so neither this pty
// nor the original takes it for part of a session.
func IdentityLock(root, path, key string) string {
	h := sha256.Sum256([]byte(path + "\x00" + key))
	return filepath.Join(root, IdentityLockPrefix+hex.EncodeToString(h[:16]))
}

// IdentityLockPrefix starts the names of identity locks.
const IdentityLockPrefix = ".ptyfile-up-"
