package testutil

import (
	"debug/elf"
	"path/filepath"
	"runtime"
	"testing"
)

// Symbols returns the names of the functions linked into the built
// command name (pty, pty-daemon, ...), for tests that keep a binary free
// of a package. It skips where binaries are not ELF.
func Symbols(t testing.TB, name string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads the ELF symbol table")
	}
	f, err := elf.Open(filepath.Join(BinDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s symbols: %v", name, err)
	}
	var names []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			names = append(names, s.Name)
		}
	}
	return names
}
