package spawn

import (
	"bytes"
	"github.com/ptyorg/pty/pkg/launchconfig"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStartableTellsWhatTheKernelRuns checks the launcher's guess of
// whether a command will start against what starting it does: every
// command it calls startable must start.
func TestStartableTellsWhatTheKernelRuns(t *testing.T) {
	if runtime.GOOS != "linux" || elfMachine[runtime.GOARCH] == 0 {
		t.Skip("the check is for Linux on the architectures it knows")
	}
	dir := t.TempDir()
	sh, err := ResolveCommand("sh", "/", os.Getenv("PATH"))
	if err != nil {
		t.Fatal(err)
	}
	elf, _ := os.ReadFile(sh)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noLoader := append([]byte(nil), elf...)
	for _, c := range []struct {
		path string
		want bool
	}{
		{sh, true},
		{write("script", []byte("#!"+sh+" -e\necho hi\n")), true},
		{write("plain", []byte("echo hi\n")), false},
		{write("missing-interp", []byte("#!/no/such/shell\necho hi\n")), false},
		{write("relative-interp", []byte("#!sh\necho hi\n")), false},
		{write("junk-elf", append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 200)...)), false},
		{write("no-loader", breakLoader(t, noLoader)), false},
	} {
		got := startable(launchconfig.Config{Command: c.path}, nil)
		if got != c.want {
			t.Errorf("startable(%s) = %v, want %v", filepath.Base(c.path), got, c.want)
		}
		if got {
			p, err := os.StartProcess(c.path, []string{c.path, "-c", "exit 0"}, &os.ProcAttr{})
			if err != nil {
				t.Errorf("%s is called startable but does not start: %v", c.path, err)
			} else {
				p.Wait()
			}
		}
	}
	if startable(launchconfig.Config{Command: sh, Args: []string{string(make([]byte, 200<<10))}}, nil) {
		t.Error("an argument the kernel refuses is called startable")
	}
}

// breakLoader renames the dynamic loader an ELF file names, or skips the
// test for a static one.
func breakLoader(t *testing.T, elf []byte) []byte {
	i := bytes.Index(elf[:min(len(elf), 4096)], []byte("/ld-"))
	if i < 0 {
		t.Skip("sh is statically linked")
	}
	copy(elf[i:], "/XX-")
	return elf
}
