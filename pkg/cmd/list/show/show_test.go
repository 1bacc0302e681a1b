package show

import (
	"strings"
	"testing"
)

// Args takes the plain command lines only; every other one is the full
// command's, which answers help, filters and mistakes in its own words.
func TestArgsTakesOnlyThePlainCommandLines(t *testing.T) {
	for _, c := range []struct {
		args       string
		json, tags bool
	}{
		{"", false, false},
		{"--json", true, false},
		{"-json", true, false},
		{"--tags", false, true},
		{"--tags --json", true, true},
		{"-json -tags", true, true},
	} {
		o, ok := Args(strings.Fields(c.args))
		if !ok || o.JSON != c.json || o.Tags != c.tags || o.Summary != nil {
			t.Errorf("Args(%q) = %+v, %v; want json %v, tags %v", c.args, o, ok, c.json, c.tags)
		}
	}
	for _, args := range [][]string{
		{"x"}, {"--json", "--json"}, {"--tags", "-tags"}, {"--json=true"}, {"--summary"}, {"--status", "running"},
		{"--help"}, {"-h"}, {"--"}, {""}, {"--root", "/tmp"}, {"--JSON"},
	} {
		if o, ok := Args(args); ok {
			t.Errorf("Args(%q) = %+v, true; want it left to the full command", args, o)
		}
	}
}
