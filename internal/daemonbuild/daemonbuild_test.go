package daemonbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// install/build.sh, which install.sh and make use, builds the daemon with
// the same experiment as the tests' and benchmarks' builds.
func TestBuildScriptAgrees(t *testing.T) {
	b, err := os.ReadFile("../../install/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `nogreenteagc"`) || !strings.Contains(s, Package) || Experiment != "nogreenteagc" {
		t.Errorf("install/build.sh and daemonbuild disagree on how pty-daemon is built (%s with GOEXPERIMENT %s)", Package, Experiment)
	}
}

// The script's daemon carries the experiment in its build settings where
// the toolchain knows it, and only there; a GOEXPERIMENT of the caller that
// the toolchain refuses makes Env refuse too.
func TestBuildScriptBuildsDaemonWithExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command")
	}
	mod, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if Env(mod, os.Environ()) == nil {
		t.Skipf("this toolchain does not know GOEXPERIMENT %s", Experiment)
	}
	dir := t.TempDir()
	cmd := exec.Command("sh", "install/build.sh", filepath.Join(dir, "bin"), "-trimpath")
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOEXPERIMENT=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install/build.sh: %v\n%s", err, out)
	}
	for name, want := range map[string]bool{"pty-daemon": true, "pty-peek": false} {
		out, err := exec.Command("go", "version", "-m", filepath.Join(dir, "bin", name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(out), "GOEXPERIMENT="+Experiment); got != want {
			t.Errorf("%s built with GOEXPERIMENT=%s: %v, want %v\n%s", name, Experiment, got, want, out)
		}
	}
	if env := Env(mod, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "GOEXPERIMENT=nosuchexperiment"}); env != nil {
		t.Errorf("an unknown experiment the caller set was accepted: %q", env)
	}
}
