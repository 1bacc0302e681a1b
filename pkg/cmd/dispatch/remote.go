package dispatch

import "strings"

// remoteEnv names the host every command goes to when --remote is not
// given.
const remoteEnv = "PTY_REMOTE"

// anywhere are the commands whose arguments are flags and one session
// reference: --remote is theirs wherever it is (before a "--"). Other
// commands take it only right after their name, since their arguments
// may be anything (pty run -- ssh --remote x).
var anywhere = map[string]bool{"list": true, "ls": true, "peek": true, "attach": true, "a": true}

// stayLocal are commands that never go to another host.
var stayLocal = map[string]bool{"remote": true, "remote-serve": true, "completions": true}

// peelRemote takes --remote HOST (or --remote=HOST) out of a command's
// arguments and returns the arguments of "pty remote" for it, or nil
// when the command runs here. host is a --remote given before the
// command ("" when none). "pty list --remote" with no host, or "pty list
// --all-hosts", is the fleet list.
func peelRemote(host string, hostSet bool, sub string, args, env []string) ([]string, string) {
	if stayLocal[sub] {
		if hostSet {
			return nil, "pty " + sub + " runs on this host: drop --remote"
		}
		return nil, ""
	}
	all := false
	rest := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || i > 0 && !anywhere[sub] {
			rest = append(rest, args[i:]...)
			break
		}
		switch {
		case a == "--all-hosts" && (sub == "list" || sub == "ls"):
			all = true
		case strings.HasPrefix(a, "--remote="):
			host, hostSet = strings.TrimPrefix(a, "--remote="), true
		case a == "--remote":
			if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				host, hostSet = args[i+1], true
				i++
			} else if sub == "list" || sub == "ls" {
				all = true
			} else {
				return nil, "--remote needs a host, as in: pty --remote HOST " + sub + " ... (an ssh destination or a name from remotes.toml)"
			}
		default:
			rest = append(rest, a)
		}
	}
	if all {
		return append([]string{"--all-hosts", sub}, rest...), ""
	}
	if !hostSet {
		host = getenv(env, remoteEnv)
		if host == "" {
			return nil, ""
		}
	}
	if host == "" {
		return nil, "--remote needs a host, as in: pty --remote HOST " + sub + " ..."
	}
	return append([]string{host, sub}, rest...), ""
}

func getenv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if s, ok := strings.CutPrefix(kv, key+"="); ok {
			v = s
		}
	}
	return v
}
