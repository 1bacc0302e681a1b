package layout

import (
	"bytes"
	"strconv"
)

// upstreamDaemonEnv is the variable the original TypeScript pty (up to at
// least 0.10.0) hands its daemon the session's configuration in. Its
// daemon is "node …/server.js", so its process name is node, not
// pty-daemon (later versions set the title to pty-daemon).
const upstreamDaemonEnv = "PTY_SERVER_CONFIG="

// IsUpstreamDaemon reports whether pid is a session daemon of the original
// TypeScript pty: its last argument is a server.js module (the original
// daemon only serves when its script path ends in /server.js) and its
// environment holds PTY_SERVER_CONFIG (which the original strips from the
// session's own processes). Both together keep a pid reused by an
// unrelated "node server.js" from passing for a live daemon. Linux only:
// without /proc it answers false.
func IsUpstreamDaemon(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	cmdline, err := readFileRaw(dir + "/cmdline")
	if err != nil {
		return false
	}
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	if len(args) < 2 || !bytes.HasSuffix(args[len(args)-1], []byte("/server.js")) {
		return false
	}
	env, err := readFileRaw(dir + "/environ")
	if err != nil {
		return false
	}
	return bytes.HasPrefix(env, []byte(upstreamDaemonEnv)) ||
		bytes.Contains(env, []byte("\x00"+upstreamDaemonEnv))
}
