package layout

import (
	"path/filepath"
	"strings"

	"github.com/ptyorg/pty/internal/rootdir"
	"github.com/ptyorg/pty/pkg/procs"
)

// upstreamDaemonEnv is the variable the original TypeScript pty hands its
// daemon the session's configuration in: JSON whose first field is the
// session's id, {"name":"<id>",…}. It strips it from the session's own
// processes, so only the daemon has it.
const upstreamDaemonEnv = "PTY_SERVER_CONFIG"

// isUpstreamDaemon reports whether the process pid, with arguments args,
// is the original TypeScript pty's daemon for session id in root. Its
// daemon is "node …/server.js" (later versions retitle it pty-daemon,
// which blanks the other arguments). Its arguments say neither session nor
// root, so the environment decides: PTY_SERVER_CONFIG names the session,
// and PTY_ROOT, PTY_SESSION_DIR or HOME the root the daemon resolved, as
// the original pty resolves it. Reading another process's environment
// needs its owner's rights; a pid we cannot read is not proven ours.
// The caller still holds it to its start time, as for any daemon that
// does not carry its generation.
func isUpstreamDaemon(pid int, args []string, root, id string) bool {
	if !upstreamShape(args) {
		return false
	}
	env, err := procs.Environ(pid)
	if err != nil {
		return false
	}
	config, ok := envValue(env, upstreamDaemonEnv)
	if !ok {
		return false
	}
	if name, err := jsonStringField([]byte(config), "name"); err != nil || name != id {
		return false
	}
	return rootdir.Same(upstreamRoot(env), root)
}

// upstreamShape: "node …/server.js", or the retitled "pty-daemon" with
// nothing after it but the blanked remains of the original arguments.
func upstreamShape(args []string) bool {
	if len(args) >= 2 && strings.HasSuffix(args[len(args)-1], "/server.js") {
		return true
	}
	if len(args) == 0 || strings.TrimRight(args[0], " ") != DaemonName {
		return false
	}
	for _, a := range args[1:] {
		if strings.TrimRight(a, " ") != "" {
			return false
		}
	}
	return true
}

// upstreamRoot is the root an original-pty daemon with environment env
// serves: PTY_ROOT, else the older PTY_SESSION_DIR, else
// ~/.local/state/pty.
func upstreamRoot(env []byte) string {
	if v, ok := envValue(env, "PTY_ROOT"); ok && v != "" {
		return v
	}
	if v, ok := envValue(env, "PTY_SESSION_DIR"); ok && v != "" {
		return v
	}
	home, _ := envValue(env, "HOME")
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "pty")
}
