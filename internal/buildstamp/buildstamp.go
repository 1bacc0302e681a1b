// Package buildstamp reads the version stamp the Go toolchain writes into
// every executable (the main module's version and the VCS revision), from
// the executable's file. It is what runtime/debug.ReadBuildInfo reports,
// for a program that must not link runtime/debug: that links fmt and
// reflection, whose start-up the dispatcher would pay on every pty command
// for the one command (--version) that reads the stamp.
package buildstamp

import (
	"bytes"
	"io"
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
// none that this package can read. An ELF executable (Linux's) is read at
// its header, program headers and the start of its writable segment, a
// few small reads; any other file, or an ELF file whose stamp is not
// where the Go linker puts it, is read whole and searched.
func Read(path string) (s Stamp, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return Stamp{}, false
	}
	defer f.Close()
	if s, ok := readELF(f); ok {
		return s, true
	}
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

// The ELF fields readELF needs (the ELF specification's names).
const (
	elfPTLoad = 1 // p_type of a loadable segment
	elfPFX    = 1 // p_flags: executable
	elfPFW    = 2 // p_flags: writable
	// maxPhnum bounds the program headers read: Go's linker writes
	// fewer than a dozen.
	maxPhnum = 64
	// firstRead is what is read at the writable segment's start: the
	// blob's header and, in one read, the module information of a
	// program with a few dozen dependencies.
	firstRead = 4096
	// maxBlob bounds the blob read in a second read when the module
	// information is longer than firstRead.
	maxBlob = 1 << 20
)

// readELF finds the stamp where the Go linker writes it in an ELF
// executable, as debug/buildinfo looks for it: the .go.buildinfo
// section opens the first writable, non-executable PT_LOAD segment. ok is
// false for a file that is not ELF or has no stamp there; the caller then
// searches the whole file.
func readELF(r io.ReaderAt) (Stamp, bool) {
	var h [64]byte
	if _, err := r.ReadAt(h[:], 0); err != nil || string(h[:4]) != "\x7fELF" {
		return Stamp{}, false
	}
	var u16 func([]byte) uint64
	var u32 func([]byte) uint64
	var u64 func([]byte) uint64
	switch h[5] {
	case 1: // little-endian
		u16 = func(b []byte) uint64 { return uint64(b[0]) | uint64(b[1])<<8 }
		u32 = func(b []byte) uint64 { return u16(b) | u16(b[2:])<<16 }
		u64 = func(b []byte) uint64 { return u32(b) | u32(b[4:])<<32 }
	case 2: // big-endian
		u16 = func(b []byte) uint64 { return uint64(b[1]) | uint64(b[0])<<8 }
		u32 = func(b []byte) uint64 { return u16(b[2:]) | u16(b)<<16 }
		u64 = func(b []byte) uint64 { return u32(b[4:]) | u32(b)<<32 }
	default:
		return Stamp{}, false
	}
	// Where the program headers are and, for each, where its type,
	// flags, file offset and file size are (ELFCLASS32 or ELFCLASS64).
	var phoff, phentsize, phnum uint64
	var typ, flags, off, size func([]byte) uint64
	switch h[4] {
	case 1:
		phoff, phentsize, phnum = u32(h[28:]), u16(h[42:]), u16(h[44:])
		typ, off, size, flags = u32, func(b []byte) uint64 { return u32(b[4:]) },
			func(b []byte) uint64 { return u32(b[16:]) }, func(b []byte) uint64 { return u32(b[24:]) }
		if phentsize < 32 {
			return Stamp{}, false
		}
	case 2:
		phoff, phentsize, phnum = u64(h[32:]), u16(h[54:]), u16(h[56:])
		typ, flags, off, size = u32, func(b []byte) uint64 { return u32(b[4:]) },
			func(b []byte) uint64 { return u64(b[8:]) }, func(b []byte) uint64 { return u64(b[32:]) }
		if phentsize < 56 {
			return Stamp{}, false
		}
	default:
		return Stamp{}, false
	}
	if phnum == 0 || phnum > maxPhnum || phoff > 1<<40 {
		return Stamp{}, false
	}
	ph := make([]byte, phnum*phentsize)
	if _, err := r.ReadAt(ph, int64(phoff)); err != nil {
		return Stamp{}, false
	}
	for i := uint64(0); i < phnum; i++ {
		p := ph[i*phentsize:]
		if typ(p) != elfPTLoad || flags(p)&(elfPFX|elfPFW) != elfPFW {
			continue
		}
		at, n := off(p), min(size(p), maxBlob)
		if at > 1<<40 || n < headerSize {
			return Stamp{}, false
		}
		b := make([]byte, min(n, firstRead))
		if k, err := r.ReadAt(b, int64(at)); err != nil && !(err == io.EOF && k == len(b)) {
			return Stamp{}, false
		}
		// A longer module information is read again whole, which
		// takes one more read (two should the toolchain's version run
		// past the first).
		for range 2 {
			need, ok := blobLen(b)
			if !ok || need <= uint64(len(b)) || need > n {
				break
			}
			b = make([]byte, need)
			if _, err := r.ReadAt(b, int64(at)); err != nil {
				return Stamp{}, false
			}
		}
		if string(b[:len(magic)]) != magic {
			return Stamp{}, false
		}
		return parse(b)
	}
	return Stamp{}, false
}

// blobLen is how much of the blob that b starts must be read: its header
// and two varint-prefixed strings, or, when the first runs past b, that
// string and room for the second's length. ok is false when b starts no
// blob or its lengths cannot be read.
func blobLen(b []byte) (uint64, bool) {
	if len(b) < headerSize || string(b[:len(magic)]) != magic {
		return 0, false
	}
	at := uint64(headerSize)
	for range 2 {
		if at > uint64(len(b)) {
			return at + maxVarint, true
		}
		n, w := uvarint(b[at:])
		if w == 0 || n > maxBlob {
			return 0, false
		}
		at += uint64(w) + n
	}
	return at, true
}

// maxVarint is the longest varint of a 64-bit number.
const maxVarint = 10

// uvarint decodes a varint at the start of b; w is 0 when there is none.
func uvarint(b []byte) (n uint64, w int) {
	for i, shift := 0, uint(0); i < len(b) && shift < 64; i, shift = i+1, shift+7 {
		n |= uint64(b[i]&0x7f) << shift
		if b[i] < 0x80 {
			return n, i + 1
		}
	}
	return 0, 0
}
