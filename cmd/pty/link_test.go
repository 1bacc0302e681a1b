package main

import (
	"debug/elf"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// The dispatcher only forwards: it talks to no daemon, so it links
// neither the client nor the protocol. Answering a command itself would
// mean a second path to keep in step with the command's own.
func TestDispatcherLinksNoClient(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the ELF symbol table")
	}
	f, err := elf.Open(filepath.Join(testutil.BinDir(t), "pty"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		for _, pkg := range []string{"github.com/ptyorg/pty/pkg/client.", "github.com/ptyorg/pty/pkg/proto."} {
			if strings.HasPrefix(s.Name, pkg) {
				t.Fatalf("pty links %s (%s): the dispatcher must only forward", strings.TrimSuffix(pkg, "."), s.Name)
			}
		}
	}
}
