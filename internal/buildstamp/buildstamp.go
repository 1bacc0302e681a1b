// Package buildstamp reads the version stamp the Go toolchain writes into
// every executable (the main module's version and the VCS revision), from
// the executable's file. It is what runtime/debug.ReadBuildInfo reports,
// for a program that must not link runtime/debug: that links fmt and
// reflection, whose start-up the dispatcher would pay on every pty command
// for the one command (--version) that reads the stamp.
package buildstamp

import (
	"bytes"
	"os"
	"strings"
)

// Stamp is the part of the build information pty's version line shows.
type Stamp struct {
	Version  string // the main module's version ("(devel)" when unversioned)
	Revision string // build setting vcs.revision
	Modified bool   // build setting vcs.modified=true
}

// magic starts the build information blob, at a 16-byte boundary; the
// blob's header is 32 bytes, then (in every Go since 1.18, flag bit 2) the
// toolchain version and the module information, each a varint length and
// its bytes.
const (
	magic      = "\xff Go buildinf:"
	align      = 16
	headerSize = 32
	flagInline = 2
)

// Read reads the stamp of the executable at path; ok is false when it has
// none that this package can read.
func Read(path string) (s Stamp, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stamp{}, false
	}
	return parse(b)
}

func parse(b []byte) (Stamp, bool) {
	for off := 0; off < len(b); {
		i := bytes.Index(b[off:], []byte(magic))
		if i < 0 {
			return Stamp{}, false
		}
		at := off + i
		off = at + 1
		if at%align != 0 || len(b)-at < headerSize || b[at+15]&flagInline == 0 {
			continue
		}
		rest := b[at+headerSize:]
		_, rest, ok := varString(rest) // the toolchain's version
		if !ok {
			continue
		}
		mod, _, ok := varString(rest)
		if !ok {
			continue
		}
		return parseModInfo(string(mod)), true
	}
	return Stamp{}, false
}

// varString splits a varint-prefixed string off b.
func varString(b []byte) (s, rest []byte, ok bool) {
	var n uint64
	for i, shift := 0, uint(0); i < len(b) && shift < 64; i, shift = i+1, shift+7 {
		n |= uint64(b[i]&0x7f) << shift
		if b[i] < 0x80 {
			b = b[i+1:]
			if n > uint64(len(b)) {
				return nil, nil, false
			}
			return b[:n], b[n:], true
		}
	}
	return nil, nil, false
}

// parseModInfo reads the module information's text: 16 bytes of sentinel
// at each end around lines such as "mod\tPATH\tVERSION\tSUM" and
// "build\tKEY=VALUE".
func parseModInfo(m string) Stamp {
	if len(m) >= 33 && m[len(m)-17] == '\n' {
		m = m[16 : len(m)-16]
	}
	s := Stamp{Version: "(devel)"}
	for _, line := range strings.Split(m, "\n") {
		f := strings.Split(line, "\t")
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[2] != "":
			s.Version = f[2]
		case len(f) == 2 && f[0] == "build":
			k, v, _ := strings.Cut(f[1], "=")
			switch k {
			case "vcs.revision":
				s.Revision = v
			case "vcs.modified":
				s.Modified = v == "true"
			}
		}
	}
	return s
}
