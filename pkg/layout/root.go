package layout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/ptyorg/pty/internal/errs"
)

// MaxSocketPath is the kernel's limit on a unix socket path (sun_path),
// counting the terminating NUL on macOS; Linux allows 108 but we keep the
// smaller limit so a registry works on both.
const MaxSocketPath = 104

// MaxRootLen leaves room for "/" + an 8-character id + ".sock" under the
// socket limit, so every random id fits.
const MaxRootLen = MaxSocketPath - 14

// RootEnv describes where the root came from, and anything the user should be
// told about it (deprecated variables), so callers decide how to print it.
type RootEnv struct {
	Dir      string
	Source   string   // "PTY_ROOT", "PTY_SESSION_DIR", "XDG_STATE_HOME" or "HOME"
	Warnings []string // already-formatted one-line notices for stderr
}

// ResolveRoot finds the registry directory from the environment, without
// touching the filesystem. getenv is os.Getenv in production; tests pass
// their own. Precedence: PTY_ROOT, then the deprecated PTY_SESSION_DIR, then
// $XDG_STATE_HOME/pty, then ~/.local/state/pty.
func ResolveRoot(getenv func(string) string) (RootEnv, error) {
	var r RootEnv
	root, legacy := getenv("PTY_ROOT"), getenv("PTY_SESSION_DIR")
	silent := getenv("PTY_ROOT_LEGACY_SILENT") == "1"
	switch {
	case root != "":
		r.Dir, r.Source = root, "PTY_ROOT"
		if legacy != "" && legacy != root && !silent {
			r.Warnings = append(r.Warnings, "pty: both PTY_ROOT and PTY_SESSION_DIR are set; using PTY_ROOT ("+root+"). Unset PTY_SESSION_DIR to silence this.")
		}
	case legacy != "":
		r.Dir, r.Source = legacy, "PTY_SESSION_DIR"
		if !silent {
			r.Warnings = append(r.Warnings, "pty: PTY_SESSION_DIR is deprecated; set PTY_ROOT instead (PTY_ROOT_LEGACY_SILENT=1 silences this).")
		}
	case getenv("XDG_STATE_HOME") != "":
		r.Dir, r.Source = filepath.Join(getenv("XDG_STATE_HOME"), "pty"), "XDG_STATE_HOME"
	default:
		home := getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return r, fmt.Errorf("cannot find the pty root: set PTY_ROOT or HOME: %w", err)
			}
			home = h
		}
		r.Dir, r.Source = filepath.Join(home, ".local", "state", "pty"), "HOME"
	}
	abs, err := filepath.Abs(r.Dir)
	if err != nil {
		return r, fmt.Errorf("pty root %q: %w", r.Dir, err)
	}
	r.Dir = abs
	if err := checkRootLen(r.Dir); err != nil {
		return r, err
	}
	return r, nil
}

// checkRootLen rejects a root whose socket paths could exceed the kernel limit.
func checkRootLen(dir string) error {
	if len(dir) > MaxRootLen {
		return fmt.Errorf("PTY_ROOT is too long (%d bytes): it must be at most %d bytes, because session sockets live under it and the kernel limits a socket path to %d bytes. Choose a shorter directory", len(dir), MaxRootLen, MaxSocketPath)
	}
	return nil
}

// EnsureRoot creates the root (mode 0700) if needed and refuses one that
// another user owns or that group or others can write: sessions' sockets and
// metadata live there, and anyone who can write it can hijack them.
func EnsureRoot(dir string) error {
	if err := checkRootLen(dir); err != nil {
		return err
	}
	if err := CheckRootDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create pty root %s: %w", dir, err)
	}
	return CheckRootPerms(dir)
}

// CheckRootPerms verifies ownership and permissions of an existing root.
// Every change to the registry passes it (AcquireLock checks it before
// taking any lock): a file written into another user's root, say by root
// with that user's PTY_ROOT, would belong to the writer, and the owner
// could no longer read or replace it. (No fmt here: the session daemon
// takes locks, and keeps its binary free of fmt and reflection.)
func CheckRootPerms(dir string) error {
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

// CheckRootDir refuses a root that exists but is not a directory (or
// lies under a file), so every command says so instead of failing later
// with a misleading error. A missing root is fine: it is an empty
// registry, created by the first command that writes.
func CheckRootDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir(), errors.Is(err, syscall.ENOTDIR):
		return notDirError(dir)
	}
	return nil
}

// CheckWritableRoot is what a command that changes existing sessions
// checks first: the root is a directory and it is ours (CheckRootPerms).
// A missing root passes; the session the command names will then not be
// found.
func CheckWritableRoot(dir string) error {
	if err := CheckRootDir(dir); err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return CheckRootPerms(dir)
}

func notDirError(dir string) error {
	return errors.New("pty root " + dir + " is not a directory: set PTY_ROOT to a directory (pty creates it when missing)")
}

// ErrNoRoot is returned by read-only operations when the root does not exist
// yet; callers usually treat it as an empty registry.
var ErrNoRoot = errors.New("pty root does not exist")
