package layout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ptyorg/pty/internal/errs"
	"github.com/ptyorg/pty/internal/rootdir"
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
				return r, errs.Wrap("cannot find the pty root: set PTY_ROOT or HOME", err)
			}
			home = h
		}
		r.Dir, r.Source = filepath.Join(home, ".local", "state", "pty"), "HOME"
	}
	abs, err := filepath.Abs(r.Dir)
	if err != nil {
		return r, errs.Wrap("pty root "+strconv.Quote(r.Dir), err)
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
		return errors.New("PTY_ROOT is too long (" + strconv.Itoa(len(dir)) + " bytes): it must be at most " + strconv.Itoa(MaxRootLen) + " bytes, because session sockets live under it and the kernel limits a socket path to " + strconv.Itoa(MaxSocketPath) + " bytes. Choose a shorter directory")
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
	if err := rootdir.Check(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create pty root %s: %w", dir, err)
	}
	return rootdir.CheckPerms(dir)
}

// ErrNoRoot is returned by read-only operations when the root does not exist
// yet; callers usually treat it as an empty registry.
var ErrNoRoot = errors.New("pty root does not exist")
