// Package gcservice runs `pty gc` on a timer: a periodic one-shot of
// pty-gc installed in the platform's service manager (a systemd timer on
// Linux, a launchd StartInterval job on macOS), one per registry root.
//
// github.com/kardianos/service picks the platform and does the install,
// uninstall and status calls. Its built-in unit files describe long-running
// daemons (Restart=always, KeepAlive), which is the opposite of a periodic
// one-shot, so this package renders complete files of its own and hands
// them to the library as its custom templates. systemd needs a second file,
// the .timer that makes the .service periodic; the library knows nothing
// of timers, so that one is written and enabled here, next to the library's
// .service.
package gcservice

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ptyorg/pty/internal/errs"
)

// DefaultInterval is how often gc runs, as upstream's launchd job did.
const DefaultInterval = 30 * time.Second

// Platforms this package can render for.
const (
	Systemd = "systemd"
	Launchd = "launchd"
)

// LogName is the log file gc writes under its root when run by the timer.
const LogName = "gc.log"

// Config says what to install.
type Config struct {
	Root     string        // absolute registry root; baked in as PTY_ROOT
	Exec     string        // absolute path of pty-gc
	Path     string        // PATH baked into the job, so respawned sessions find their commands
	Interval time.Duration // at least a second, whole seconds
	System   bool          // a system unit / LaunchDaemon instead of a per-user one
	User     string        // for System: the account gc runs as ("" = the current user)
	Home     string        // for where per-user files go; "" = the current user's home
	// FailedTTL is passed on to each pass as --failed-ttl (a duration in
	// gc's grammar, like 2d); "" leaves gc's default.
	FailedTTL string
}

// File is one generated file.
type File struct {
	Path    string
	Content string
}

// Validate checks a config before anything is rendered or written.
func (c Config) Validate() error {
	if !filepath.IsAbs(c.Root) {
		return fmt.Errorf("root %q is not absolute", c.Root)
	}
	if !filepath.IsAbs(c.Exec) {
		return errs.Sentence(fmt.Sprintf("pty-gc path %q is not absolute", c.Exec), nil)
	}
	if c.Interval < time.Second || c.Interval%time.Second != 0 {
		return fmt.Errorf("interval %v is not valid: give whole seconds, at least 1s (like 30s or 5m)", c.Interval)
	}
	for _, s := range []string{c.Root, c.Exec, c.Path, c.User, c.FailedTTL} {
		// The service library renders our files as templates; they must
		// not contain its delimiters. Control characters would break
		// the unit file's line structure.
		if strings.Contains(s, "{{") || strings.ContainsAny(s, "\n\r\x00") {
			return fmt.Errorf("%q cannot be written into a service file: it contains a line break, NUL or {{", s)
		}
	}
	return nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9]+`)

// Name is the unit name for a root: "pty-gc-<basename>-<hash>", where the
// hash of the full path keeps two roots with the same basename apart, so
// several roots can each have their own timer.
func Name(root string) string {
	base := strings.Trim(unsafeChars.ReplaceAllString(filepath.Base(root), "-"), "-")
	if len(base) > 32 {
		base = base[:32]
	}
	h := sha256.Sum256([]byte(filepath.Clean(root)))
	id := hex.EncodeToString(h[:])[:8]
	if base == "" {
		return "pty-gc-" + id
	}
	return "pty-gc-" + strings.ToLower(base) + "-" + id
}

// Label is the launchd label for a root.
func Label(root string) string {
	return "org.ptyorg.pty.gc." + strings.TrimPrefix(Name(root), "pty-gc-")
}

func (c Config) logPath() string { return filepath.Join(c.Root, LogName) }

func (c Config) args() []string {
	a := []string{c.Exec, "--log", c.logPath()}
	if c.FailedTTL != "" {
		a = append(a, "--failed-ttl", c.FailedTTL)
	}
	return a
}

func (c Config) user() (string, error) {
	if c.User != "" {
		return c.User, nil
	}
	u, err := user.Current()
	if err != nil {
		return "", fmt.Errorf("current user: %w", err)
	}
	return u.Username, nil
}

func (c Config) home() (string, error) {
	if c.Home != "" {
		return c.Home, nil
	}
	return os.UserHomeDir()
}

// Dir is where the platform's files go.
func (c Config) Dir(platform string) (string, error) {
	switch platform {
	case Systemd:
		if c.System {
			return "/etc/systemd/system", nil
		}
		h, err := c.home()
		return filepath.Join(h, ".config", "systemd", "user"), err
	case Launchd:
		if c.System {
			return "/Library/LaunchDaemons", nil
		}
		h, err := c.home()
		return filepath.Join(h, "Library", "LaunchAgents"), err
	}
	return "", fmt.Errorf("unknown platform %q: use %s or %s", platform, Systemd, Launchd)
}

// Render returns the files an install writes on platform, with their paths.
func Render(c Config, platform string) ([]File, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	dir, err := c.Dir(platform)
	if err != nil {
		return nil, err
	}
	switch platform {
	case Systemd:
		svc, err := SystemdService(c)
		if err != nil {
			return nil, err
		}
		name := Name(c.Root)
		return []File{
			{filepath.Join(dir, name+".service"), svc},
			{filepath.Join(dir, name+".timer"), SystemdTimer(c)},
		}, nil
	case Launchd:
		pl, err := LaunchdPlist(c)
		if err != nil {
			return nil, err
		}
		return []File{{filepath.Join(dir, Label(c.Root)+".plist"), pl}}, nil
	}
	return nil, fmt.Errorf("unknown platform %q", platform)
}

// SystemdService is the one-shot unit the timer starts.
func SystemdService(c Config) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by `pty gc install`; remove with `pty gc uninstall`.\n")
	fmt.Fprintf(&b, "[Unit]\nDescription=pty gc for %s (respawn permanent sessions, reap finished ones)\n", c.Root)
	fmt.Fprintf(&b, "Documentation=https://github.com/ptyorg/pty/blob/main/docs/gc.md\n\n")
	fmt.Fprintf(&b, "[Service]\nType=oneshot\n")
	quoted := make([]string, 0, 3)
	for _, a := range c.args() {
		quoted = append(quoted, systemdQuote(a))
	}
	fmt.Fprintf(&b, "ExecStart=%s\n", strings.Join(quoted, " "))
	fmt.Fprintf(&b, "Environment=%s\n", systemdQuote("PTY_ROOT="+c.Root))
	if c.Path != "" {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote("PATH="+c.Path))
	}
	if c.System {
		u, err := c.user()
		if err != nil {
			return "", err
		}
		// gc refuses a root it does not own, and respawned sessions
		// must run as their owner, not as root.
		fmt.Fprintf(&b, "User=%s\n", u)
	}
	// A respawned session's daemon must outlive this one-shot: the
	// default KillMode=control-group would kill it when gc exits.
	fmt.Fprintf(&b, "KillMode=process\n")
	fmt.Fprintf(&b, "Nice=10\n")
	// Bounded even if a respawn hangs; the next tick retries.
	fmt.Fprintf(&b, "TimeoutStartSec=5min\n")
	// The service library enables the service it installs; an [Install]
	// section makes that a clean operation, and a pass at login or boot
	// does no harm (the timer does the rest).
	target := "default.target"
	if c.System {
		target = "multi-user.target"
	}
	fmt.Fprintf(&b, "\n[Install]\nWantedBy=%s\n", target)
	return b.String(), nil
}

// SystemdTimer makes the service periodic: first run shortly after the
// timer starts (login or boot), then every Interval after the last run.
func SystemdTimer(c Config) string {
	name := Name(c.Root)
	secs := strconv.FormatInt(int64(c.Interval/time.Second), 10)
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated by `pty gc install`; remove with `pty gc uninstall`.\n")
	fmt.Fprintf(&b, "[Unit]\nDescription=Run pty gc for %s every %ss\n\n", c.Root, secs)
	fmt.Fprintf(&b, "[Timer]\nOnActiveSec=10s\nOnUnitActiveSec=%ss\nAccuracySec=1s\nUnit=%s.service\n\n", secs, name)
	fmt.Fprintf(&b, "[Install]\nWantedBy=timers.target\n")
	return b.String()
}

// systemdQuote quotes one word for ExecStart= and Environment=: double
// quotes, with backslash, quote, and the specifier and variable signs
// escaped so a path is taken literally.
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(s) + `"`
}

// LaunchdPlist is the launchd job: pty-gc every Interval seconds, and once
// at load.
func LaunchdPlist(c Config) (string, error) {
	esc := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			switch r {
			case '&':
				b.WriteString("&amp;")
			case '<':
				b.WriteString("&lt;")
			case '>':
				b.WriteString("&gt;")
			case '"':
				b.WriteString("&quot;")
			case '\'':
				b.WriteString("&apos;")
			default:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	fmt.Fprintf(&b, "\t<key>Label</key>\n\t<string>%s</string>\n", esc(Label(c.Root)))
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range c.args() {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", esc(a))
	}
	b.WriteString("\t</array>\n")
	b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
	if c.Path != "" {
		fmt.Fprintf(&b, "\t\t<key>PATH</key>\n\t\t<string>%s</string>\n", esc(c.Path))
	}
	fmt.Fprintf(&b, "\t\t<key>PTY_ROOT</key>\n\t\t<string>%s</string>\n", esc(c.Root))
	b.WriteString("\t</dict>\n")
	fmt.Fprintf(&b, "\t<key>StartInterval</key>\n\t<integer>%d</integer>\n", int64(c.Interval/time.Second))
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	// A periodic job, not a daemon: launchd must not restart it when it
	// exits, and should not kill the sessions it spawned either.
	b.WriteString("\t<key>KeepAlive</key>\n\t<false/>\n")
	b.WriteString("\t<key>AbandonProcessGroup</key>\n\t<true/>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Background</string>\n")
	if c.System {
		u, err := c.user()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\t<key>UserName</key>\n\t<string>%s</string>\n", esc(u))
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String(), nil
}

// ErrUnsupported is returned by Install on a machine with neither systemd
// nor launchd; docs/gc.md has cron and runit lines for those.
var ErrUnsupported = errors.New("no systemd or launchd here: run `pty gc` from cron or runit instead (see docs/gc.md)")
