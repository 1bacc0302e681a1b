// Package remote reaches the sessions of another machine: over OpenSSH
// (ssh HOST pty remote-serve --stdio, or pty CMD ARGS for the commands
// that run there), or through a fabric peer's tunnel, as the original pty
// does. pty opens no port and adds no authentication: ssh's keys, config
// and host key checks are the security model (docs/remote.md). Short
// commands go over the shared connection that ssh made without starting
// ssh again (mux.go).
package remote

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Target is one host, as a command names it and as it is reached.
type Target struct {
	// Label is the name the user gave: how messages and the fleet list
	// call the host.
	Label string
	// SSH is the destination given to ssh (host, user@host or an alias
	// of the ssh config), and Port its port when one was given; empty
	// for a fabric peer.
	SSH  string
	Port int
	// Fabric is the fabric peer, when the host is reached through
	// fabric's tunnel instead of ssh.
	Fabric string
	// Pty is the command that runs pty on the host; "pty" (found on the
	// PATH of its non-interactive shell) unless remotes.toml says.
	Pty string
}

// Entry is one [NAME] table of remotes.toml.
type Entry struct {
	SSH    string `toml:"ssh"`
	Fabric string `toml:"fabric"`
	Pty    string `toml:"pty"`
}

// Config is remotes.toml: the hosts by name, in the file's order.
type Config struct {
	Names []string
	Hosts map[string]Entry
	Path  string
}

// MaxConfig bounds remotes.toml: a few lines per host.
const MaxConfig = 1 << 20

// ConfigPath is where remotes.toml is: $XDG_CONFIG_HOME/pty/remotes.toml,
// else ~/.config/pty/remotes.toml.
func ConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "pty", "remotes.toml")
}

// LoadConfig reads remotes.toml; a missing file is an empty Config.
func LoadConfig(getenv func(string) string) (Config, error) {
	path := ConfigPath(getenv)
	c := Config{Hosts: map[string]Entry{}, Path: path}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	b := make([]byte, MaxConfig+1)
	n, _ := readFull(f, b)
	if n > MaxConfig {
		return c, fmt.Errorf("%s is larger than %d bytes: it holds a few lines per host; fix it", path, MaxConfig)
	}
	b = b[:n]
	var raw map[string]Entry
	if err := toml.Unmarshal(b, &raw); err != nil {
		return c, fmt.Errorf("%s: %v; each host is a table like [web]\\nssh = \"me@web.example.com\"", path, err)
	}
	// The file's order, which the fleet list follows.
	for _, name := range tableOrder(string(b), raw) {
		h := raw[name]
		if err := checkName(name); err != nil {
			return c, fmt.Errorf("%s: [%s]: %v", path, name, err)
		}
		switch {
		case h.SSH == "" && h.Fabric == "":
			return c, fmt.Errorf("%s: [%s] says neither ssh = \"user@host\" nor fabric = \"peer\": add one", path, name)
		case h.SSH != "" && h.Fabric != "":
			return c, fmt.Errorf("%s: [%s] has both ssh and fabric: keep one", path, name)
		}
		if h.SSH != "" {
			if _, _, err := parseDest(h.SSH); err != nil {
				return c, fmt.Errorf("%s: [%s] ssh = %q: %v", path, name, h.SSH, err)
			}
		}
		c.Names = append(c.Names, name)
		c.Hosts[name] = h
	}
	return c, nil
}

// tableOrder lists raw's names in the order their tables start in text.
func tableOrder(text string, raw map[string]Entry) []string {
	type pos struct {
		name string
		at   int
	}
	var ps []pos
	for name := range raw {
		at := len(text)
		for _, h := range []string{"[" + name + "]", "[\"" + name + "\"]", "['" + name + "']"} {
			if i := strings.Index(text, h); i >= 0 && i < at {
				at = i
			}
		}
		ps = append(ps, pos{name, at})
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && (ps[j].at < ps[j-1].at || ps[j].at == ps[j-1].at && ps[j].name < ps[j-1].name); j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// checkName refuses a host name that ssh would take for an option, or
// that cannot be typed as one word.
func checkName(s string) error {
	if s == "" {
		return errors.New("the host name is empty")
	}
	if strings.HasPrefix(s, "-") {
		return errors.New("a host name cannot start with '-'")
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return errors.New("a host name cannot contain spaces or control characters")
	}
	return nil
}

// parseDest reads an ssh destination: host, user@host, an ssh config
// alias, or ssh://[user@]host[:port]. It returns what ssh is given and
// the port (0 for ssh's default).
func parseDest(s string) (string, int, error) {
	if err := checkName(s); err != nil {
		return "", 0, err
	}
	if !strings.HasPrefix(s, "ssh://") {
		if strings.Contains(s, "://") {
			return "", 0, errors.New("only ssh:// URLs are understood: give ssh://[user@]host[:port], user@host or an ssh config alias")
		}
		return s, 0, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return "", 0, errors.New("not an ssh URL of the form ssh://[user@]host[:port]")
	}
	if _, ok := u.User.Password(); ok {
		return "", 0, errors.New("an ssh URL with a password is refused: pty never sends passwords; use a key")
	}
	host := u.Hostname()
	if host == "" || strings.HasPrefix(host, "-") {
		return "", 0, errors.New("the ssh URL has no host")
	}
	port := 0
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
		}
		port = n
	}
	dest := host // an IPv6 address too: ssh takes it without brackets
	if name := u.User.Username(); name != "" {
		dest = name + "@" + dest
	}
	return dest, port, nil
}

// Resolve turns HOST as the user typed it into a Target: a name of
// remotes.toml, else an ssh destination.
func Resolve(host string, c Config) (Target, error) {
	if h, ok := c.Hosts[host]; ok {
		t := Target{Label: host, Fabric: h.Fabric, Pty: h.Pty}
		if h.SSH != "" {
			dest, port, err := parseDest(h.SSH)
			if err != nil {
				return Target{}, err
			}
			t.SSH, t.Port = dest, port
		}
		return t.withDefaults(), nil
	}
	dest, port, err := parseDest(host)
	if err != nil {
		return Target{}, fmt.Errorf("--remote %q: %v", host, err)
	}
	return Target{Label: host, SSH: dest, Port: port}.withDefaults(), nil
}

func (t Target) withDefaults() Target {
	if t.Pty == "" {
		t.Pty = "pty"
	}
	return t
}

// hostPort is for messages: the host ssh is given, with its port.
func (t Target) hostPort() string {
	if t.Port == 0 {
		return t.SSH
	}
	return net.JoinHostPort(t.SSH, strconv.Itoa(t.Port))
}
