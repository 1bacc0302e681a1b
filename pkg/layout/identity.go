package layout

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptyorg/pty/internal/jsonlite"
	"github.com/ptyorg/pty/internal/proc"
	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/procs"
)

// A pid file only says which pid a daemon had. Once that daemon is gone
// (crashed, SIGKILLed, the machine rebooted) the kernel hands the pid to
// anything, another session's daemon included, so a pid is trusted (shown
// as running, waited for, signalled) only after its process proves to be
// this session's daemon. Ours carry the proof in their arguments, which
// /proc/<pid>/cmdline shows to anyone in one read:
//
//	pty-daemon <id> <generation> <root>
//
// The generation is minted per daemon, so a process with these arguments
// is the daemon of exactly this record; no start-time check is needed. A
// zombie's cmdline is empty, so it is dead without a second read.
//
// Daemons that carry less say less, and are also held to their start
// time: the daemon writes its pid file after it starts, so a process that
// started after the pid file was last written is not the one that wrote
// it. That covers daemons of earlier versions of this pty ("pty-daemon
// <id>") and of the original TypeScript pty (see upstream.go).

// verdict is what a pid is to a session.
type verdict uint8

const (
	// notDaemon: no such process, a zombie, or a live process that is not
	// this session's daemon (its pid was reused).
	notDaemon verdict = iota
	// isDaemon: the session's daemon, proven by its arguments (and, for
	// older daemons, its start time).
	isDaemon
	// unverifiable: the process exists but there is no /proc to identify
	// it by (macOS, the BSDs).
	unverifiable
)

// identifyDaemon says whether pid is the daemon of session id in root. gen
// is the generation the caller's record names ("" when it has none, as
// before a record exists): a daemon of another generation is not this
// record's. It reads /proc/<pid>/cmdline; only daemons that do not carry
// their generation cost more reads (the pid file's mtime, the process's
// stat, for the original pty its environment).
func identifyDaemon(pid int, root, id, gen string) verdict {
	if pid <= 0 {
		return notDaemon
	}
	cmdline, err := readProcFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return judgeCmdline(pid, cmdline, err, root, id, gen)
}

// judgeCmdline is identifyDaemon once pid's cmdline has been read (err
// being the read's). It keeps nothing of cmdline, so the caller may read
// the next file into the same buffer.
func judgeCmdline(pid int, cmdline []byte, err error, root, id, gen string) verdict {
	if err != nil {
		if !proc.Mounted() {
			if proc.Alive(pid) {
				return unverifiable
			}
		}
		return notDaemon
	}
	// The common case, our daemon with its generation, without
	// allocating: list does this for every running session.
	if f, n := fields4(cmdline); n == 4 && filepath.Base(string(f[0])) == DaemonName && string(f[1]) == id {
		if (gen == "" || string(f[2]) == gen) && (string(f[3]) == root || rootdir.Same(string(f[3]), root)) {
			return isDaemon
		}
	}
	return identify(pid, procs.SplitNul(cmdline), root, id, gen)
}

// fields4 splits NUL-terminated cmdline into its first four arguments and
// counts them (5 meaning more than four).
func fields4(b []byte) (f [4][]byte, n int) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			i = len(b)
		}
		if n == 4 {
			return f, 5
		}
		f[n] = b[:i]
		n++
		if i == len(b) {
			break
		}
		b = b[i+1:]
	}
	return f, n
}

// identify judges a process by its arguments (and where they are not
// enough, its start time and environment).
func identify(pid int, args []string, root, id, gen string) verdict {
	if len(args) == 0 {
		return notDaemon // a zombie, or a kernel thread
	}
	if filepath.Base(args[0]) == DaemonName {
		switch {
		case len(args) == 4 && args[1] == id:
			if (gen == "" || args[2] == gen) && rootdir.Same(args[3], root) {
				return isDaemon
			}
		case len(args) == 2 && args[1] == id:
			// This pty before daemons carried their generation and root.
			if startedBeforePidFile(pid, root, id) {
				return isDaemon
			}
		}
	}
	if isUpstreamDaemon(pid, args, root, id) && startedBeforePidFile(pid, root, id) {
		return isDaemon
	}
	return notDaemon
}

// isSessionDaemon reports whether pid is, provably, the daemon of session
// id in root (of generation gen, when gen is not ""). Anything about to
// signal a pid from a pid file or a record asks this first. Without /proc
// it asks ps for the arguments.
func isSessionDaemon(pid int, root, id, gen string) bool {
	switch identifyDaemon(pid, root, id, gen) {
	case isDaemon:
		return true
	case unverifiable:
		args, err := procs.Cmdline(pid)
		if err != nil || len(args) < 4 || filepath.Base(args[0]) != DaemonName {
			return false
		}
		// ps joins arguments with spaces: the root is the rest.
		return args[1] == id && (gen == "" || args[2] == gen) && rootdir.Same(strings.Join(args[3:], " "), root)
	}
	return false
}

// startedBeforePidFile reports whether pid's process started before (or
// as) the session's pid file was last written.
func startedBeforePidFile(pid int, root, id string) bool {
	fi, err := os.Stat(pathsFor(root, id).Pid())
	if err != nil {
		return false
	}
	p, ok := procs.Lookup(pid)
	if !ok || p.Zombie {
		return false
	}
	start, ok := procs.StartTime(p)
	if !ok {
		return false
	}
	return !start.After(fi.ModTime().Add(proc.StartSlack))
}

// envValue finds KEY's value in a NUL-separated environment block.
func envValue(env []byte, key string) (string, bool) {
	k := []byte(key + "=")
	for len(env) > 0 {
		i := bytes.IndexByte(env, 0)
		entry := env
		if i >= 0 {
			entry, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		if v, ok := bytes.CutPrefix(entry, k); ok {
			return string(v), true
		}
	}
	return "", false
}

// jsonStringField reads one top-level string field of a JSON object.
func jsonStringField(b []byte, field string) (string, error) {
	d := jsonlite.NewDecoder(b)
	var v string
	found := false
	err := d.Object(func(key string) error {
		if key == field && !found {
			found = true
			return jsonlite.Into(d, &v, d.String)
		}
		_, err := d.Raw()
		return err
	})
	if err == nil && !found {
		err = errors.New("no " + field)
	}
	return v, err
}
