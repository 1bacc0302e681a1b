package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// public is what of pty a plugin may import: the packages a third party's
// module can use and that pty keeps stable (docs/plugins.md, "The Go API").
var public = []string{"github.com/ptyorg/pty/pkg/layout", "github.com/ptyorg/pty/pkg/eventlog"}

const module = "github.com/ptyorg/pty/"

// TestImportsOnlyThePublicAPI keeps this example honest: it is built only
// on what a plugin in another module can import, so everything it shows
// can be done there. A third party cannot import internal/ packages at all,
// and other pkg/ packages are pty's own commands' and change without
// notice; what the public packages themselves use is their business.
func TestImportsOnlyThePublicAPI(t *testing.T) {
	allowed := map[string]bool{}
	for _, p := range public {
		for _, d := range goList(t, "-deps", p) {
			allowed[d] = true
		}
	}
	self := goList(t, ".")[0]
	allowed[self] = true
	for _, imp := range goList(t, "-f", "{{join .Imports \"\\n\"}}", ".") {
		if strings.HasPrefix(imp, module) && !slices.Contains(public, imp) {
			t.Errorf("pty-top imports %s: a plugin may import only %v", imp, public)
		}
	}
	for _, d := range goList(t, "-deps", ".") {
		if strings.HasPrefix(d, module) && !allowed[d] {
			t.Errorf("pty-top depends on %s, which is not reached through %v", d, public)
		}
	}
}

func goList(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	return strings.Fields(string(out))
}
