package durations

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/duration"
	"github.com/ptyorg/pty/internal/testutil"
)

// TestEveryDurationTakesTheSameForms gives each duration flag a bare number
// of seconds, the same with a unit, milliseconds and a bad value: the first
// three do what the command does, the last is refused with one line that
// names the flag and the forms.
func TestEveryDurationTakesTheSameForms(t *testing.T) {
	root := testutil.Root(t)
	testutil.MustRun(t, root, "run", "-d", "--id", "s", "--", "sleep", "300")

	cases := []struct {
		flag string
		args func(d string) []string
		code int    // exit status with a good value
		out  string // in stdout or stderr with a good value
		good []string
	}{
		{"--older-than", func(d string) []string { return []string{"list", "--older-than", d} }, 0, "", nil},
		{"--newer-than", func(d string) []string { return []string{"list", "--newer-than", d} }, 0, "", nil},
		{"--keep-max-age", func(d string) []string { return []string{"gc", "-n", "--keep-max-age", d} }, 0, "", nil},
		{"--failed-ttl", func(d string) []string { return []string{"gc", "-n", "--failed-ttl", d} }, 0, "", nil},
		{"--fast-fail-window", func(d string) []string { return []string{"gc", "-n", "--fast-fail-window", d} }, 0, "", nil},
		// Timers count whole seconds: no milliseconds.
		{"--interval", func(d string) []string {
			return []string{"gc", "install", "--print", "--platform", "systemd", "--interval", d}
		}, 0, "OnUnitActiveSec=2", []string{"2", "2s"}},
		{"--interval", func(d string) []string { return []string{"gc", "--print-launchd-plist", "--interval", d} }, 0, "<integer>2</integer>", []string{"2", "2s"}},
		{"--failed-ttl", func(d string) []string {
			return []string{"gc", "install", "--print", "--platform", "systemd", "--failed-ttl", d}
		}, 0, "--failed-ttl", nil},
		{"-t", func(d string) []string { return []string{"peek", "--wait", "never-on-screen", "-t", d, "s"} }, 1, "never-on-screen", nil},
		{"-t", func(d string) []string { return []string{"events", "s", "--wait", "user.never", "-t", d} }, 1, "", nil},
		{"--with-delay", func(d string) []string { return []string{"send", "s", "--with-delay", d, "--seq", "a", "--seq", "b"} }, 0, "", nil},
	}
	for _, c := range cases {
		good := c.good
		if good == nil {
			good = []string{"0.2", "1", "1s", "200ms", "1 S"}
		}
		for _, d := range good {
			r := testutil.Run(t, root, c.args(d)...)
			if r.Code != c.code || !strings.Contains(r.Stdout+r.Stderr, c.out) {
				t.Errorf("pty %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(c.args(d), " "), r.Code, r.Stdout, r.Stderr, c.code, c.out)
			}
		}
		for _, bad := range []string{"5x", "1h30m"} {
			r := testutil.Run(t, root, c.args(bad)...)
			line := strings.TrimRight(r.Stderr, "\n")
			if r.Code == 0 || strings.Contains(line, "\n") || !strings.Contains(line, c.flag) ||
				!strings.Contains(line, `"`+bad+`" is not valid`) || !strings.Contains(line, duration.Forms) {
				t.Errorf("pty %s: exit %d, stderr %q; want one line naming %s, %q and the forms", strings.Join(c.args(bad), " "), r.Code, r.Stderr, c.flag, bad)
			}
		}
	}
}

// --idle-days is days, not a duration: whole days, with or without a d,
// as the strategy.idle-days tag it stands in for (and the original pty,
// which shares the tag) counts them. Anything else is refused with one
// line saying so.
func TestIdleDaysTakesWholeDays(t *testing.T) {
	root := testutil.Root(t)
	for _, d := range []string{"1", "7", "7d", " 30 "} {
		if r := testutil.Run(t, root, "gc", "-n", "--idle-days", d); r.Code != 0 {
			t.Errorf("pty gc -n --idle-days %q: exit %d, stderr %q; want it taken", d, r.Code, r.Stderr)
		}
	}
	for _, bad := range []string{"1.5", "12h", "0", "-1", "x", "99999"} {
		r := testutil.Run(t, root, "gc", "-n", "--idle-days", bad)
		line := strings.TrimRight(r.Stderr, "\n")
		if r.Code != 1 || strings.Contains(line, "\n") || !strings.Contains(line, "--idle-days") || !strings.Contains(line, "whole days") {
			t.Errorf("pty gc -n --idle-days %q: exit %d, stderr %q; want exit 1 and one line saying it takes whole days", bad, r.Code, r.Stderr)
		}
	}
}
