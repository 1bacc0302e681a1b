package gcservice

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The original pty's gc job: `pty gc --print-launchd-plist`, saved by its
// user as ~/Library/LaunchAgents/<label>.plist and loaded with launchctl.
// Its label is com.compoundingtech.pty.gc (com.myobie.pty.gc before its
// 0.12 rename), with ".<root's basename>" added for a root other than the
// default, and its EnvironmentVariables name the root (PTY_ROOT, or the
// older PTY_SESSION_DIR). Left in place, it would run a second gc on the
// root ours is installed for; install replaces it, uninstall removes it.

// legacyPlist matches the file names of the original's jobs: the label's
// prefix, then its root suffix if any.
var legacyPlist = regexp.MustCompile(`^com\.(compoundingtech|myobie)\.pty\.gc((\.[A-Za-z0-9._-]+)?)\.plist$`)

// legacyRoot finds the root in a plist's EnvironmentVariables.
var legacyRoot = regexp.MustCompile(`<key>(PTY_ROOT|PTY_SESSION_DIR)</key>\s*<string>([^<]*)</string>`)

// maxPlist bounds what is read of a candidate file: the original's plist
// is under a kilobyte.
const maxPlist = 64 << 10

// Legacy returns the original pty's launchd gc jobs for c.Root found in
// the directory our launchd job goes to, by path.
func Legacy(c Config) ([]string, error) {
	dir, err := c.Dir(Launchd)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	home, _ := c.home()
	defaultRoot := filepath.Join(home, ".local", "state", "pty")
	var out []string
	for _, e := range ents {
		m := legacyPlist.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		root, ok := plistRoot(path)
		if !ok {
			// No root named: the job ran on the original's default
			// root, whose label has no suffix.
			if m[2] != "" || home == "" {
				continue
			}
			root = defaultRoot
		}
		if filepath.Clean(root) == filepath.Clean(c.Root) {
			out = append(out, path)
		}
	}
	return out, nil
}

// plistRoot is the root a plist's job runs gc on, if it names one:
// PTY_ROOT, which the original prefers, else PTY_SESSION_DIR.
func plistRoot(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b := make([]byte, maxPlist)
	n, _ := f.Read(b)
	var root string
	found := false
	for _, m := range legacyRoot.FindAllSubmatch(b[:n], -1) {
		if !found || string(m[1]) == "PTY_ROOT" {
			root, found = unescapeXML(string(m[2])), true
		}
	}
	return root, found
}

func unescapeXML(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&").Replace(s)
}

// removeLegacy unloads (where launchctl exists) and removes the original
// pty's jobs for c.Root, and returns the files removed.
func removeLegacy(c Config) ([]string, error) {
	paths, err := Legacy(c)
	if err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for _, p := range paths {
		if launchctl, err := exec.LookPath("launchctl"); err == nil {
			exec.Command(launchctl, "unload", p).Run() // best effort: it may not be loaded
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove the original pty's gc job %s: %w", p, err))
			continue
		}
		done = append(done, p)
	}
	return done, errors.Join(errs...)
}
