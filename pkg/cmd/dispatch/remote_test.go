package dispatch

import (
	"reflect"
	"testing"
)

func TestPeelRemote(t *testing.T) {
	for _, c := range []struct {
		host    string
		hostSet bool
		sub     string
		args    []string
		env     []string
		want    []string
		msg     bool
	}{
		{sub: "list", args: []string{"--json"}},
		{host: "h", hostSet: true, sub: "list", args: []string{"--json"}, want: []string{"h", "list", "--json"}},
		{sub: "list", args: []string{"--json", "--remote", "h"}, want: []string{"h", "list", "--json"}},
		{sub: "ls", args: []string{"--remote=h"}, want: []string{"h", "ls"}},
		{sub: "list", args: []string{"--remote"}, want: []string{"--all-hosts", "list"}},
		{sub: "list", args: []string{"--remote", "--json"}, want: []string{"--all-hosts", "list", "--json"}},
		{sub: "list", args: []string{"--all-hosts"}, want: []string{"--all-hosts", "list"}},
		{sub: "peek", args: []string{"-f", "x", "--remote", "h"}, want: []string{"h", "peek", "-f", "x"}},
		{sub: "peek", args: []string{"--remote"}, msg: true},
		{sub: "send", args: []string{"--remote", "h", "x", "--remote"}, want: []string{"h", "send", "x", "--remote"}},
		// run's arguments are the command's: only right after "run".
		{sub: "run", args: []string{"-d", "--", "ssh", "--remote", "h"}},
		{sub: "run", args: []string{"-d", "ssh", "--remote", "h"}},
		{sub: "attach", args: []string{"x", "--", "--remote", "h"}},
		{sub: "kill", args: []string{"x"}, env: []string{"PTY_REMOTE=e"}, want: []string{"e", "kill", "x"}},
		{sub: "kill", args: []string{"--remote", "h", "x"}, env: []string{"PTY_REMOTE=e"}, want: []string{"h", "kill", "x"}},
		{sub: "remote-serve", args: []string{"--stdio"}, env: []string{"PTY_REMOTE=e"}},
		{host: "h", hostSet: true, sub: "remote-serve", msg: true},
	} {
		got, msg := peelRemote(c.host, c.hostSet, c.sub, c.args, c.env)
		if !reflect.DeepEqual(got, c.want) || (msg != "") != c.msg {
			t.Errorf("peelRemote(%q, %v, %q, %q, %q) = %q, %q; want %q (message: %v)", c.host, c.hostSet, c.sub, c.args, c.env, got, msg, c.want, c.msg)
		}
	}
}
