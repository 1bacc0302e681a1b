package launchconfig

import (
	"strings"
	"testing"
)

func TestChildEnv(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/h", "SECRET=x", "LC_ALL=C", "TERM=", "PTY_SERVER_CONFIG=y"}
	env := ChildEnv(base, false, []string{"HOME", "A"}, map[string]string{"A": "1"}, "", "id", "gen")
	got := strings.Join(env, " ")
	for _, want := range []string{"PATH=/bin", "SECRET=x", "A=1", "PTY_SESSION=id", "PTY_SESSION_GENERATION=gen", "TERM=xterm-256color"} {
		if !strings.Contains(got, want) {
			t.Errorf("env %q lacks %s", got, want)
		}
	}
	if strings.Contains(got, "HOME=") || strings.Contains(got, "PTY_SERVER_CONFIG") {
		t.Errorf("env %q keeps removed variables", got)
	}
	iso := strings.Join(ChildEnv(base, true, nil, nil, "", "id", "g"), " ")
	if strings.Contains(iso, "SECRET") || !strings.Contains(iso, "LC_ALL=C") || !strings.Contains(iso, "HOME=/h") {
		t.Errorf("isolated env %q", iso)
	}
}

// The daemon is started with a bare exec, so its environment is made
// unique here, the last value winning as with os/exec.
func TestDaemonEnvLastValueWins(t *testing.T) {
	got := strings.Join(DaemonEnv([]string{"A=1", "GOMAXPROCS=4", "B=2", "PTY_SESSION=x", "A=3", "GOMAXPROCS=2"}), " ")
	if want := "A=3 PTY_CALLER_GOMAXPROCS=2 B=2 GOMAXPROCS=1 GODEBUG=profstackdepth=0"; got != want {
		t.Errorf("DaemonEnv = %q, want %q", got, want)
	}
}

// The daemon's runtime settings come after the caller's own GODEBUG, which
// wins where both set one, and the session's child gets the caller's
// GOMAXPROCS and GODEBUG back exactly: unset, empty or set.
func TestDaemonRuntimeSettingsRoundTrip(t *testing.T) {
	for _, c := range []struct {
		caller []string
		debug  string // the daemon's GODEBUG
	}{
		{nil, "profstackdepth=0"},
		{[]string{"GODEBUG="}, "profstackdepth=0"},
		{[]string{"GODEBUG=gctrace=1,profstackdepth=64"}, "profstackdepth=0,gctrace=1,profstackdepth=64"},
		{[]string{"GODEBUG=x=1", "GOMAXPROCS=3", "GODEBUG=y=2"}, "profstackdepth=0,y=2"},
	} {
		caller := append([]string{"PATH=/bin"}, c.caller...)
		daemon := DaemonEnv(caller)
		var debug []string
		for _, kv := range daemon {
			if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
				debug = append(debug, v)
			}
		}
		if len(debug) != 1 || debug[0] != c.debug {
			t.Errorf("caller %q: the daemon's GODEBUG is %q, want %q once", c.caller, debug, c.debug)
		}
		// What the caller meant: the last value of each variable.
		want := map[string]string{}
		for _, kv := range caller {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
		back := CallerEnv(daemon)
		got := map[string]string{}
		for _, kv := range back {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := got[k]; dup {
				t.Errorf("caller %q: %s twice in the child's environment %q", c.caller, k, back)
			}
			got[k] = v
		}
		if len(got) != len(want) {
			t.Errorf("caller %q: the child's environment is %q", c.caller, back)
		}
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("caller %q: the child has %s=%q (set %v), want %q", c.caller, k, g, ok, v)
			}
		}
	}
}

// A variable removed and then assigned is in the environment once, with
// the assigned value.
func TestChildEnvRemovedThenAssigned(t *testing.T) {
	env := ChildEnv([]string{"FOO=1", "BAR=2"}, false, []string{"FOO"}, map[string]string{"FOO": "3"}, "", "id", "gen")
	var foos []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "FOO=") {
			foos = append(foos, kv)
		}
	}
	if len(foos) != 1 || foos[0] != "FOO=3" {
		t.Errorf("env %q has FOO as %q, want once, FOO=3", env, foos)
	}
}
