package buildstamp

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadMatchesRuntime: the stamp read from this test binary's file is
// what the runtime reports of it.
func TestReadMatchesRuntime(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Skip("no build information in this binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Read(exe)
	if !ok {
		t.Fatalf("no stamp found in %s", exe)
	}
	want := Stamp{Version: "(devel)"}
	if bi.Main.Version != "" {
		want.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			want.Revision = s.Value
		case "vcs.modified":
			want.Modified = s.Value == "true"
		}
	}
	if got != want {
		t.Errorf("Read = %+v, runtime/debug says %+v", got, want)
	}
}

func TestParseRejectsGarbage(t *testing.T) {
	for _, b := range [][]byte{nil, []byte("no stamp here"), []byte(magic + "\x08\x02" + "0123456789abcdef\xff\xff")} {
		if s, ok := parse(b); ok {
			t.Errorf("parse(%q) = %+v, want none", b, s)
		}
	}
}

// TestParseStamp: a blob as the toolchain lays it out, at a 16-byte
// boundary behind a false start.
func TestParseStamp(t *testing.T) {
	mod := "0w\xaf\x0c\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6" +
		"path\tgithub.com/ptyorg/pty/cmd/pty\n" +
		"mod\tgithub.com/ptyorg/pty\tv0.3.1-0.20261202-abcdef+dirty\t\n" +
		"build\t-trimpath=true\n" +
		"build\tvcs.revision=0123456789abcdef0123456789abcdef01234567\n" +
		"build\tvcs.modified=true\n" +
		"\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2"
	blob := []byte(magic + "\x08\x02")
	blob = append(blob, make([]byte, headerSize-len(blob))...)
	blob = append(blob, 8)
	blob = append(blob, "go1.26.8"...)
	blob = append(blob, byte(len(mod)&0x7f|0x80), byte(len(mod)>>7))
	blob = append(blob, mod...)
	b := append([]byte("xx"+magic), make([]byte, 2*align-2-len(magic))...) // unaligned: skipped
	b = append(b, blob...)
	got, ok := parse(b)
	want := Stamp{Version: "v0.3.1-0.20261202-abcdef+dirty", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true}
	if !ok || got != want {
		t.Errorf("parse = %+v, %v; want %+v", got, ok, want)
	}
}

// TestReadELFFindsStamp: on Linux the stamp of this test binary is found
// at its writable segment, without the whole-file search, and is the one
// that search finds.
func TestReadELFFindsStamp(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("executables are ELF on Linux")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, ok := readELF(f)
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	want, wok := parse(b)
	if !ok || !wok || got != want {
		t.Fatalf("readELF = %+v, %v; the whole file holds %+v, %v", got, ok, want, wok)
	}
}

// blobOf is a build information blob holding mod as its module
// information.
func blobOf(mod string) []byte {
	blob := []byte(magic + "\x08\x02")
	blob = append(blob, make([]byte, headerSize-len(blob))...)
	blob = append(blob, 8)
	blob = append(blob, "go1.26.8"...)
	for n := uint64(len(mod)); ; n >>= 7 {
		if n < 0x80 {
			blob = append(blob, byte(n))
			break
		}
		blob = append(blob, byte(n)|0x80)
	}
	return append(blob, mod...)
}

// elf64 is a little-endian ELF64 file with a read-only executable
// segment and then a writable one holding data, as Go's linker lays
// them out.
func elf64(data []byte) []byte {
	const phoff, phentsize, dataOff = 64, 56, 4096
	b := make([]byte, dataOff)
	copy(b, "\x7fELF\x02\x01\x01")
	put := func(at int, v uint64, n int) {
		for i := 0; i < n; i++ {
			b[at+i] = byte(v >> (8 * i))
		}
	}
	put(32, phoff, 8)
	put(54, phentsize, 2)
	put(56, 2, 2)
	seg := func(i int, flags, off, size uint64) {
		p := phoff + i*phentsize
		put(p, elfPTLoad, 4)
		put(p+4, flags, 4)
		put(p+8, off, 8)
		put(p+32, size, 8)
	}
	seg(0, elfPFX|4, 0, dataOff)
	seg(1, elfPFW|4, dataOff, uint64(len(data)))
	return append(b, data...)
}

// TestReadELFLongModuleInfo: module information longer than the first
// read is read whole; a writable segment that does not start with a
// stamp is not searched (Read then searches the whole file).
func TestReadELFLongModuleInfo(t *testing.T) {
	mod := "0w\xaf\x0c\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6" +
		"path\tgithub.com/ptyorg/pty/cmd/pty\n" +
		"mod\tgithub.com/ptyorg/pty\tv1.2.3\t\n" +
		strings.Repeat("dep\texample.com/some/dependency\tv0.0.1\th1:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=\n", 200) +
		"build\tvcs.revision=0123456789abcdef0123456789abcdef01234567\n" +
		"\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2"
	if len(mod) < 2*firstRead {
		t.Fatalf("module information of %d bytes does not test a second read", len(mod))
	}
	want := Stamp{Version: "v1.2.3", Revision: "0123456789abcdef0123456789abcdef01234567"}
	got, ok := readELF(bytes.NewReader(elf64(append(blobOf(mod), make([]byte, 100)...))))
	if !ok || got != want {
		t.Errorf("readELF = %+v, %v; want %+v", got, ok, want)
	}
	short := blobOf("0w\xaf\x0c\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6mod\tm\tv9\t\n\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2")
	if got, ok := readELF(bytes.NewReader(elf64(short))); !ok || got.Version != "v9" {
		t.Errorf("readELF of a short blob = %+v, %v; want version v9", got, ok)
	}
	// A stamp elsewhere in the file, or none, or no ELF at all.
	for name, b := range map[string][]byte{
		"stamp not at the segment's start": elf64(append(make([]byte, 64), blobOf(mod)...)),
		"module information cut short":     elf64(blobOf(mod)[:3*firstRead/2]),
		"not ELF":                          append([]byte("#!/bin/sh\n"), blobOf(mod)...),
	} {
		if s, ok := readELF(bytes.NewReader(b)); ok {
			t.Errorf("%s: readELF = %+v, want none", name, s)
		}
	}
}
