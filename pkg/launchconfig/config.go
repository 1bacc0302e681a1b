// Package launchconfig is what the launcher and pty-daemon share: the
// launch config the launcher writes on the daemon's fd 3, the daemon's
// environment and the child's, and the working-directory check both make.
// It is apart from package spawn because every session's daemon links it:
// the launcher's own needs (debug/elf, os/exec, fmt) stay out of the
// daemon (test/daemon's TestDaemonLinksNoHeavyPackages).
package launchconfig

import (
	"encoding/json"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Config is what the launcher (package spawn) hands pty-daemon, as JSON
// on fd 3: the validated, resolved launch settings.
type Config struct {
	Root           string                     `json:"root"`
	ID             string                     `json:"id"`
	Command        string                     `json:"command"`
	Args           []string                   `json:"args"`
	DisplayCommand string                     `json:"displayCommand"`
	Cwd            string                     `json:"cwd"`
	Rows           int                        `json:"rows"`
	Cols           int                        `json:"cols"`
	Scrollback     *int                       `json:"scrollback,omitempty"` // lines; nil: DefaultScrollback
	Tags           map[string]string          `json:"tags,omitempty"`
	DisplayName    *string                    `json:"displayName,omitempty"`
	ExtraEnv       map[string]string          `json:"extraEnv,omitempty"`
	UnsetEnv       []string                   `json:"unsetEnv,omitempty"`
	IsolateEnv     bool                       `json:"isolateEnv,omitempty"`
	Ephemeral      bool                       `json:"ephemeral,omitempty"`
	Extra          map[string]json.RawMessage `json:"extra,omitempty"`
	Replace        bool                       `json:"replace,omitempty"`
	ReplaceGen     string                     `json:"replaceGeneration,omitempty"`
	// ExactEnv is the record's "env", the original's exact environment
	// (its API's, never pty run's): the child's environment is it alone,
	// not the caller's, with the session's own variables added.
	ExactEnv map[string]string `json:"env,omitempty"`
	// Generation is the new session's generation, minted here so it can
	// also be in the daemon's arguments (registry.DaemonArgs), where anyone
	// can check a pid against a record.
	Generation string `json:"generation,omitempty"`
	// Set by Launch once it has claimed the session for the daemon (see
	// spawn's claim): when the record was created, and the inode of the socket
	// file whose listening descriptor the daemon inherits on fd 5.
	CreatedAt string `json:"createdAt,omitempty"`
	SockIno   uint64 `json:"sockIno,omitempty"`
	// Waited: the launcher waits for the daemon to report that the
	// command started, or why it did not. Otherwise the launcher has
	// already returned (see spawn's startable), and a failure to start the
	// command ends the session with it as the command's exit.
	Waited bool `json:"waited,omitempty"`
}

// Scrollback lengths, in lines (rows as the screen showed them: a long
// line that wrapped counts as many). Whatever the length, the daemon's
// scrollback also stays within term.MaxScrollbackBytes of memory.
const (
	DefaultScrollback = 10000
	MaxScrollback     = 1000000
	// ScrollbackEnv is the variable that gives new sessions their
	// scrollback when the command line or pty.toml does not.
	ScrollbackEnv = "PTY_SCROLLBACK"
)

// ScrollbackLines is the scrollback the session keeps, in lines: the
// default when none was given, at most MaxScrollback.
func (c *Config) ScrollbackLines() int {
	if c.Scrollback == nil {
		return DefaultScrollback
	}
	return min(max(*c.Scrollback, 0), MaxScrollback)
}

// CheckCwd reports, in the user's terms, why dir cannot be a working
// directory. The daemon checks too, so this stays clear of fmt (see
// Parse).
func CheckCwd(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("Working directory does not exist: " + dir)
		}
		return errors.New("Working directory " + dir + ": " + err.Error())
	}
	if !fi.IsDir() {
		return errors.New("Working directory is not a directory: " + dir)
	}
	if unix.Access(dir, unix.X_OK) != nil {
		return errors.New("Working directory is not searchable: " + dir)
	}
	return nil
}
