package buildstamp

import (
	"os"
	"runtime/debug"
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
