package spawn

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
