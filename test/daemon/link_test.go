package daemon

import (
	"strings"
	"testing"

	"github.com/ptyorg/pty/internal/testutil"
)

// What a linked package costs is judged as users pay it, by Pss and
// Private_Dirty (smaps_rollup), not by VmRSS: the binary's pages are
// shared, so a package's code is paid once across all sessions (each
// session's Pss carries its share, a lone session all of it), while what
// it writes when used is private to every session. These were dropped for
// one or the other; the pieces written instead say what they save
// (internal/jsonlite), and a change that links one again should be a
// decision, not an accident.
var unwanted = []struct{ prefix, why string }{
	{"crypto/", "crypto/rand brings the FIPS module (DRBG, AES, SHA-2/3): ids and generations come from math/rand and /dev/urandom"},
	{"os/exec.", "os/exec: the child is started with syscall.ForkExec"},
	// Package net's set-up (its resolver's tables, net/netip's unique
	// maps) was some 20 kB private to each daemon, which needs nothing
	// of it but accept.
	{"net.", "package net: the session socket is served on the runtime's poller by pkg/daemon/listen.go"},
	{"net/netip.", "net/netip, with package net"},
	// encoding/json's reflection-based encoder and decoder, fmt and the
	// reflect.Value machinery they bring were half a megabyte. The daemon
	// still links a little of encoding/json and reflect: json.RawMessage,
	// a type in layout's API, brings encoding/json's package initializer.
	{"fmt.", "fmt: errors are errs.Wrap or errors.New with strconv, output is File.WriteString"},
	{"internal/fmtsort.", "fmt's map sorting, with fmt"},
	{"encoding/json.Marshal", "json.Marshal: metadata, events and STATUS are written with internal/jsonlite, events through layout's Plain writers"},
	{"encoding/json.Unmarshal", "json.Unmarshal: metadata and the launch config are read with internal/jsonlite"},
	{"encoding/json.(*encodeState)", "encoding/json's reflection-based encoder"},
	{"encoding/json.(*decodeState)", "encoding/json's reflection-based decoder"},
	{"encoding/json.(*Decoder)", "json.Decoder, with the reflection-based decoder"},
	{"encoding/json.(*Encoder)", "json.Encoder, with the reflection-based encoder"},
	{"reflect.Value.Field", "walking structs by reflection"},
	{"reflect.Value.Index", "walking slices by reflection"},
	{"reflect.Value.Set", "setting values by reflection"},
	{"reflect.(*MapIter)", "walking maps by reflection"},
	{"reflect.(*rtype).Field", "reading struct tags at run time"},
	// The terminal toolkit's packages initialise width tables, bitmaps
	// and lookup maps at start, some 50 kB private to each daemon: the
	// emulator parses with its own parser (pkg/term/parser.go).
	{"github.com/charmbracelet/", "the terminal toolkit: pkg/term has its own control-sequence parser"},
	{"github.com/mattn/go-runewidth.", "go-runewidth fills its width tables at init: pkg/term has its own (width_table.go)"},
	{"github.com/clipperhouse/", "grapheme and width tables, with the terminal toolkit"},
	{"github.com/lucasb-eyer/go-colorful.", "colour spaces, with the terminal toolkit"},
}

func TestDaemonLinksNoHeavyPackages(t *testing.T) {
	found := map[string]string{}
	for _, name := range testutil.Symbols(t, "pty-daemon") {
		for _, u := range unwanted {
			if strings.HasPrefix(name, u.prefix) && found[u.prefix] == "" {
				found[u.prefix] = name
			}
		}
	}
	for _, u := range unwanted {
		if name := found[u.prefix]; name != "" {
			t.Errorf("pty-daemon links %s (%s): %s", name, u.prefix, u.why)
		}
	}
}
