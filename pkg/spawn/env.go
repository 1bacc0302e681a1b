package spawn

import "strings"

// isolateAllow is the environment a --isolate-env child keeps.
var isolateAllow = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TERM": true,
	"COLORTERM": true, "LANG": true, "TZ": true, "PWD": true, "TMPDIR": true,
	"PTY_ROOT": true, "PTY_SESSION_DIR": true,
}

// ChildEnv applies the env policy: base (all, or the isolate allow-list),
// minus unset, plus extra (an assignment beats a removal), then the
// session's own variables, then TERM if it is missing. The session's
// variables are PTY_SESSION, PTY_SESSION_GENERATION and, when root is not
// "", PTY_ROOT: together they tell which processes a session started even
// after its daemon is gone (kill and gc stop a crashed session's leftovers
// by them), and pty commands run inside the session use its root.
func ChildEnv(base []string, isolate bool, unset []string, extra map[string]string, root, id, gen string) []string {
	vals := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = v
	}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "PTY_SERVER_CONFIG" {
			continue
		}
		if isolate && !isolateAllow[k] && !strings.HasPrefix(k, "LC_") {
			continue
		}
		set(k, v)
	}
	for _, k := range unset {
		delete(vals, k)
	}
	for k, v := range extra {
		set(k, v)
	}
	if root != "" {
		set("PTY_ROOT", root)
	}
	set("PTY_SESSION", id)
	set("PTY_SESSION_GENERATION", gen)
	if vals["TERM"] == "" {
		set("TERM", "xterm-256color")
	}
	out := make([]string, 0, len(vals))
	for _, k := range order {
		if v, ok := vals[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return out
}
