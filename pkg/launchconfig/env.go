package launchconfig

import (
	"slices"
	"sort"
	"strings"
)

// isolateAllow is the environment a --isolate-env child keeps.
var isolateAllow = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TERM": true,
	"COLORTERM": true, "LANG": true, "TZ": true, "PWD": true, "TMPDIR": true,
	"PTY_ROOT": true, "PTY_SESSION_DIR": true,
}

// BaseEnv is the environment a session's child starts from, before
// ChildEnv: the exact environment of the launch settings when they have
// one, else caller (the environment the session was started from).
func (c *Config) BaseEnv(caller []string) []string {
	if c.ExactEnv == nil {
		return caller
	}
	env := make([]string, 0, len(c.ExactEnv))
	for k, v := range c.ExactEnv {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// ChildEnv applies the env policy: base (all, or the isolate allow-list),
// minus unset, plus extra (an assignment beats a removal), then the
// session's own variables, then TERM if it is missing. The session's
// variables are PTY_SESSION, PTY_SESSION_GENERATION and, when root is not
// "", PTY_ROOT: together they tell which processes a session started even
// after its daemon is gone (kill and gc stop a crashed session's leftovers
// by them), and pty commands run inside the session use its root.
//
// It allocates little: entries kept from base are base's own strings, and
// the index is sized once. The daemon runs this as it starts, and no
// collection runs in a session left idle: each size of object made then
// keeps a page of its own for the session's life.
func ChildEnv(base []string, isolate bool, unset []string, extra map[string]string, root, id, gen string) []string {
	n := len(base) + len(extra) + 4
	out := make([]string, 0, n)
	at := make(map[string]int, n) // a variable's entry in out
	put := func(k, kv string) {
		if i, ok := at[k]; ok {
			out[i] = kv
			return
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	for _, kv := range base {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "PTY_SERVER_CONFIG" {
			continue
		}
		if isolate && !isolateAllow[k] && !strings.HasPrefix(k, "LC_") {
			continue
		}
		put(k, kv)
	}
	removed := false
	for _, k := range unset {
		if i, ok := at[k]; ok {
			out[i] = "" // no entry is empty: each has its "="
			delete(at, k)
			removed = true
		}
	}
	for k, v := range extra {
		put(k, k+"="+v)
	}
	if root != "" {
		put("PTY_ROOT", "PTY_ROOT="+root)
	}
	put("PTY_SESSION", "PTY_SESSION="+id)
	put("PTY_SESSION_GENERATION", "PTY_SESSION_GENERATION="+gen)
	if i, ok := at["TERM"]; !ok || out[i] == "TERM=" {
		put("TERM", "TERM=xterm-256color")
	}
	if removed {
		out = slices.DeleteFunc(out, func(kv string) bool { return kv == "" })
	}
	return out
}

// DaemonEnv is the daemon's own environment: the caller's, minus the
// variables that say which session the caller runs in. A session started
// from inside another is not part of it; with them, the daemon would look
// like one of the outer session's processes to anything that tells those
// by their environment (kill and gc stopping a crashed session's
// leftovers). The session's child gets its own values anyway.
//
// The daemon also starts with runtime settings only its environment can
// make, since the runtime reads them before main runs:
//   - GOMAXPROCS=1: each extra processor costs an idle session private
//     memory (its allocation caches and the threads that serve it); the
//     daemon takes more only while a flood of output goes to an attached
//     client.
//   - GODEBUG with profstackdepth=0 first: the runtime otherwise gives
//     every OS thread two buffers for profilers' stack traces (about
//     1 KB each, a page of their own in an idle daemon), and nothing in a
//     daemon people run profiles. The caller's GODEBUG follows, so a
//     setting of its own, profstackdepth too, still wins.
//
// The caller's own values travel as callerGOMAXPROCS and callerGODEBUG,
// for CallerEnv to give back to the child.
//
// A variable given twice keeps its last value, as os/exec has it.
func DaemonEnv(env []string) []string {
	out := make([]string, 0, len(env)+2)
	at := make(map[string]int, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PTY_SESSION", "PTY_SESSION_GENERATION", callerGOMAXPROCS, callerGODEBUG:
			continue
		case "GOMAXPROCS":
			k, kv = callerGOMAXPROCS, callerGOMAXPROCS+"="+v
		case "GODEBUG":
			k, kv = callerGODEBUG, callerGODEBUG+"="+v
		}
		if i, ok := at[k]; ok {
			out[i] = kv
			continue
		}
		at[k] = len(out)
		out = append(out, kv)
	}
	debug := "GODEBUG=" + daemonGODEBUG
	if i, ok := at[callerGODEBUG]; ok {
		if _, v, _ := strings.Cut(out[i], "="); v != "" {
			debug += "," + v
		}
	}
	return append(out, "GOMAXPROCS=1", debug)
}

// daemonGODEBUG is the daemon's own GODEBUG, before the caller's (see
// DaemonEnv).
const daemonGODEBUG = "profstackdepth=0"

// callerGOMAXPROCS and callerGODEBUG carry the caller's GOMAXPROCS and
// GODEBUG in the daemon's environment.
const (
	callerGOMAXPROCS = "PTY_CALLER_GOMAXPROCS"
	callerGODEBUG    = "PTY_CALLER_GODEBUG"
)

// CallerEnv is the environment the daemon was started from, as the caller
// had it: the daemon's own, with DaemonEnv's runtime settings undone. The
// session's child starts from it.
func CallerEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GOMAXPROCS", "GODEBUG":
			continue
		case callerGOMAXPROCS:
			kv = "GOMAXPROCS=" + v
		case callerGODEBUG:
			kv = "GODEBUG=" + v
		}
		out = append(out, kv)
	}
	return out
}
