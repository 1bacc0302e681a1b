package commands

import (
	"slices"
	"testing"
)

func TestOneProcEnviron(t *testing.T) {
	env := []string{"HOME=/h", "PATH=/bin"}
	if got := OneProcEnviron("peek", env); !slices.Equal(got, []string{"HOME=/h", "PATH=/bin", "GOMAXPROCS=1", OneProcEnv + "=1"}) {
		t.Errorf("peek: %q", got)
	}
	if len(env) != 2 {
		t.Errorf("the caller's slice changed: %q", env)
	}
	for _, sub := range []string{"list", "run", "attach", "send", "my-plugin"} {
		if got := OneProcEnviron(sub, env); !slices.Equal(got, env) {
			t.Errorf("%s: %q, want the environment as it was", sub, got)
		}
	}
	for _, own := range []string{"GOMAXPROCS=4", "GOMAXPROCS=", OneProcEnv + "=1"} {
		e := append(slices.Clone(env), own)
		if got := OneProcEnviron("peek", e); !slices.Equal(got, e) {
			t.Errorf("with %s: %q, want it left alone", own, got)
		}
	}
}

func TestEnvironDropsOnlyTheDispatchersSetting(t *testing.T) {
	t.Setenv("GOMAXPROCS", "1")
	t.Setenv(OneProcEnv, "1")
	if got := Environ(); slices.Contains(got, "GOMAXPROCS=1") || slices.Contains(got, OneProcEnv+"=1") {
		t.Errorf("the one-processor start's setting is passed on: %q", got)
	}
	t.Setenv(OneProcEnv, "")
	if got := Environ(); !slices.Contains(got, "GOMAXPROCS=1") {
		t.Errorf("without the mark, GOMAXPROCS=1 is the user's and must stay: %q", got)
	}
}
