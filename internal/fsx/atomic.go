package fsx

import (
	"encoding/hex"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/natefinch/atomic"
	"github.com/ptyorg/pty/internal/errs"
)

// WriteFileAtomic replaces path with data so that a reader sees either the
// old file or the new one, never a torn one, and concurrent writers never
// share a temporary file: each writes <path>.tmp.<pid>.<rand>, syncs it,
// renames it into place and syncs the directory so the rename survives a
// crash. Last writer wins; use a lock for read-modify-write.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, true)
}

// WriteFileAtomicNoSync is WriteFileAtomic without the two fsyncs, which
// can each take tens of milliseconds: readers still never see a torn file,
// but after a power loss the file may be old or missing. For files that
// mean nothing after a crash (a pid file), or on a latency-critical path
// whose caller makes the file durable soon after with SyncFile.
func WriteFileAtomicNoSync(path string, data []byte, perm os.FileMode) error {
	return writeAtomic(path, data, perm, false)
}

// SyncFile makes a file and its directory entry durable.
func SyncFile(path string) error {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	f.Close()
	syncDir(filepath.Dir(path))
	return err
}

func writeAtomic(path string, data []byte, perm os.FileMode, sync bool) error {
	tmp := TempName(path)
	f, err := OpenNoFollow(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return errs.Wrap("write "+path, err)
	}
	_, werr := f.Write(data)
	if werr == nil && sync {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// natefinch/atomic.ReplaceFile is a rename on unix and the
		// MoveFileEx dance on Windows; it keeps the portable part ours.
		werr = atomic.ReplaceFile(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return errs.Wrap("write "+path, werr)
	}
	if sync {
		syncDir(filepath.Dir(path))
	}
	return nil
}

// TempName returns a unique temporary sibling of path. The suffix only
// has to differ between concurrent writers (O_EXCL catches the rest), so
// the runtime-seeded math/rand does: crypto/rand would link the whole FIPS
// module into every binary, the session daemon's included, for nothing.
func TempName(path string) string {
	var b [6]byte
	u := mrand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return path + ".tmp." + strconv.Itoa(os.Getpid()) + "." + hex.EncodeToString(b[:])
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: some filesystems refuse fsync on directories
		d.Close()
	}
}

// IsTemp reports whether a directory entry is an in-flight atomic write
// (see TempName), which readers must ignore.
func IsTemp(name string) bool { return strings.Contains(name, ".tmp.") }
