// Package rootdir checks the directory a registry lives in before pty
// reads or changes it: that it is a directory, and that it is the
// caller's and writable by nobody else (anyone who can write it can
// hijack its sessions' sockets and records). pkg/layout runs these checks
// in every change it makes; pty's commands run them up front, to refuse a
// bad root before anything is touched. No fmt here: the session daemon
// takes locks, and keeps its binary free of fmt and reflection.
package rootdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
)

// CheckPerms verifies ownership and permissions of an existing root.
// Every change to the registry passes it (layout passes it to fsx.AcquireLock
// before taking any lock): a file written into another user's root, say by root
// with that user's PTY_ROOT, would belong to the writer, and the owner
// could no longer read or replace it. (No fmt here: the session daemon
// takes locks, and keeps its binary free of fmt and reflection.)
func CheckPerms(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return notDirError(dir)
		}
		return errs.Wrap("pty root "+dir, err)
	}
	if !fi.IsDir() {
		return notDirError(dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		owner, me := strconv.Itoa(int(st.Uid)), strconv.Itoa(os.Geteuid())
		return errors.New("pty root " + dir + " is owned by uid " + owner + ", not you (uid " + me + "): pty does not change another user's sessions; run it as uid " + owner + ", or choose another PTY_ROOT")
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		mode := strconv.FormatUint(uint64(perm), 8)
		for len(mode) < 4 {
			mode = "0" + mode
		}
		return errors.New("pty root " + dir + " is writable by group or others (mode " + mode + "): run chmod 700 " + dir)
	}
	return nil
}

// Check refuses a root that exists but is not a directory (or
// lies under a file), so every command says so instead of failing later
// with a misleading error. A missing root is fine: it is an empty
// registry, created by the first command that writes.
func Check(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir(), errors.Is(err, syscall.ENOTDIR):
		return notDirError(dir)
	}
	return nil
}

// CheckWritable is what a command that changes existing sessions
// checks first: the root is a directory and it is ours (CheckPerms).
// A missing root passes; the session the command names will then not be
// found.
func CheckWritable(dir string) error {
	if err := Check(dir); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return CheckPerms(dir)
}

func notDirError(dir string) error {
	return errors.New("pty root " + dir + " is not a directory: set PTY_ROOT to a directory (pty creates it when missing)")
}

// Same reports whether two root paths name the same directory: equal
// strings, or (a symlink, a bind mount) the same inode.
func Same(a, b string) bool {
	if a == b || filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	var sa, sb syscall.Stat_t
	if syscall.Stat(a, &sa) != nil || syscall.Stat(b, &sb) != nil {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
