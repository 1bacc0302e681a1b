package main

import (
	"debug/elf"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// The whole daemon binary stays resident in every session (the kernel maps
// it in large folios), so each package it links costs every session its
// size. These were dropped on purpose; a change that links one again
// should be a decision, not an accident.
var unwanted = []struct{ prefix, why string }{
	{"crypto/", "crypto/rand brings the FIPS module (DRBG, AES, SHA-2/3): ids and generations come from math/rand and /dev/urandom"},
	{"os/exec.", "os/exec: the child is started with os.StartProcess"},
	{"net.", "package net: the session socket is served through os.File (daemon/listen.go) and layout probes sockets with connect(2)"},
}

func TestDaemonLinksNoHeavyPackages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the ELF symbol table")
	}
	f, err := elf.Open(filepath.Join(testutil.BinDir(t), "pty-daemon"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("pty-daemon symbols: %v", err)
	}
	found := map[string]string{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
			continue
		}
		for _, u := range unwanted {
			if strings.HasPrefix(s.Name, u.prefix) && found[u.prefix] == "" {
				found[u.prefix] = s.Name
			}
		}
	}
	for _, u := range unwanted {
		if name := found[u.prefix]; name != "" {
			t.Errorf("pty-daemon links %s (%s): %s", name, u.prefix, u.why)
		}
	}
}
